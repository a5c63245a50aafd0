import type { ConditionFilter, ConditionUnit } from '../../../conditions/index.js'

const activityOperators = new Set([
  'triggered',
  'notTriggered',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggeredWithin',
])

/**
 * A CONDITION step's comparison as a condition-engine filter, and what it is evaluated against: the contact
 * (its fields, data, events, email activity, segments), or the trigger event's payload (`event.<key>` with a
 * value operator; with an activity operator `event.<name>` keeps the engine's meaning, "the contact had it").
 * Plunk's `contact.` spellings name the contact's own fields.
 */
export function conditionFilterOf(
  field: string,
  comparison: { operator: string; value?: unknown; unit?: ConditionUnit },
): { filter: ConditionFilter; target: 'contact' | 'event' } {
  const { operator, value, unit } = comparison
  const filter = (name: string): ConditionFilter => ({
    field: name,
    operator,
    ...(value === undefined ? {} : { value }),
    ...(unit === undefined ? {} : { unit }),
  })
  if (field.startsWith('event.') && !activityOperators.has(operator)) {
    // The payload is evaluated as the data of a stand-in contact, so both get the same semantics.
    return { filter: filter(`data.${field.slice('event.'.length)}`), target: 'event' }
  }
  const contactField = field.startsWith('contact.data.')
    ? `data.${field.slice('contact.data.'.length)}`
    : field.startsWith('contact.')
      ? field.slice('contact.'.length)
      : field
  return { filter: filter(contactField), target: 'contact' }
}
