// A value import: operators.ts imports nothing, so the server's own lists are bundled, not copied.
import { type ConditionOperator, type FieldKind, operatorsByKind } from '@server/conditions/operators.js'
import type { ConditionFilter, ConditionGroup, ConditionTree, ConditionUnit } from '@server/conditions/tree.js'

export type { ConditionFilter, ConditionGroup, ConditionOperator, ConditionTree, ConditionUnit, FieldKind }
export { operatorsByKind }

/** The first choice of a filter row: a family of fields, each with the operators the server allows for it. */
export type FieldFamily = 'contact' | 'data' | 'event' | 'emailActivity' | 'segment'

export const familyLabels: Record<FieldFamily, string> = {
  contact: 'Contact field',
  data: 'Custom data',
  event: 'Event',
  emailActivity: 'Email activity',
  segment: 'Segment',
}

export const contactFields = [
  { value: 'email', label: 'Email' },
  { value: 'subscribed', label: 'Subscribed' },
  { value: 'createdAt', label: 'Created' },
  { value: 'updatedAt', label: 'Updated' },
] as const

export const emailActivities = [
  { value: 'email.sent', label: 'Sent' },
  { value: 'email.delivered', label: 'Delivered' },
  { value: 'email.opened', label: 'Opened' },
  { value: 'email.clicked', label: 'Clicked' },
  { value: 'email.bounced', label: 'Bounced' },
  { value: 'email.complained', label: 'Complained' },
] as const

/** Every operator has a label: a new server operator fails the dashboard's typecheck until it is named here. */
const operatorLabels: Record<ConditionOperator, string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  greaterThan: 'is greater than',
  lessThan: 'is less than',
  greaterThanOrEqual: 'is at least',
  lessThanOrEqual: 'is at most',
  exists: 'is set',
  notExists: 'is not set',
  within: 'is within the last',
  olderThan: 'is older than',
  triggered: 'happened',
  notTriggered: 'never happened',
  triggeredWithin: 'happened within the last',
  triggeredOlderThan: 'last happened more than',
  notTriggeredWithin: 'did not happen within the last',
  memberOfSegment: 'is a member',
  notMemberOfSegment: 'is not a member',
}

/** Labels that read better for dates than the generic comparison words. */
const dateOperatorLabels: Partial<Record<ConditionOperator, string>> = {
  equals: 'is on',
  notEquals: 'is not on',
  greaterThan: 'is after',
  lessThan: 'is before',
  greaterThanOrEqual: 'is on or after',
  lessThanOrEqual: 'is on or before',
}

export const units: { value: ConditionUnit; label: string }[] = [
  { value: 'minutes', label: 'minutes' },
  { value: 'hours', label: 'hours' },
  { value: 'days', label: 'days' },
]

export function kindOf(field: string): FieldKind {
  if (field === 'email' || field === 'subscribed') return field
  if (field === 'createdAt' || field === 'updatedAt') return 'timestamp'
  if (field.startsWith('data.')) return 'data'
  if (field.startsWith('event.')) return 'event'
  if (field.startsWith('email.')) return 'emailActivity'
  if (field === 'segment' || field.startsWith('segment.')) return 'segment'
  // An unknown field is shown as custom data; the server's 422 names what is wrong with it.
  return 'data'
}

export function familyOf(field: string): FieldFamily {
  const kind = kindOf(field)
  if (kind === 'email' || kind === 'subscribed' || kind === 'timestamp') return 'contact'
  return kind
}

/** The text after the family's prefix (`plan` of `data.plan`), which the row edits on its own. */
export function fieldName(field: string): string {
  const family = familyOf(field)
  if (family === 'contact' || family === 'emailActivity') return field
  const dot = field.indexOf('.')
  return dot < 0 ? '' : field.slice(dot + 1)
}

const prefixes: Record<Exclude<FieldFamily, 'contact' | 'emailActivity'>, string> = {
  data: 'data.',
  event: 'event.',
  segment: 'segment.',
}

export function fieldOf(family: FieldFamily, name: string): string {
  if (family === 'contact' || family === 'emailActivity') return name
  return `${prefixes[family]}${name}`
}

export function operatorLabel(kind: FieldKind, operator: ConditionOperator): string {
  return (kind === 'timestamp' ? dateOperatorLabels[operator] : undefined) ?? operatorLabels[operator]
}

/** What the value input of a filter is, from its field kind and operator (the server's `compileFilter`). */
export type ValueShape = 'none' | 'text' | 'boolean' | 'date' | 'scalar' | 'comparable' | 'span'

const spanOperators: readonly ConditionOperator[] = [
  'within',
  'olderThan',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggeredWithin',
]

export function valueShape(kind: FieldKind, operator: ConditionOperator): ValueShape {
  if (spanOperators.includes(operator)) return 'span'
  switch (kind) {
    case 'email':
      return 'text'
    case 'subscribed':
      return 'boolean'
    case 'timestamp':
      return 'date'
    case 'data':
      if (operator === 'exists' || operator === 'notExists') return 'none'
      if (operator === 'contains' || operator === 'notContains') return 'text'
      if (operator === 'equals' || operator === 'notEquals') return 'scalar'
      return 'comparable'
    default:
      return 'none'
  }
}

/** A starting value for a shape, so a new filter is valid as soon as its field is named. */
function initialValue(shape: ValueShape): unknown {
  if (shape === 'boolean') return true
  if (shape === 'span') return 7
  if (shape === 'none') return undefined
  return ''
}

/** The filter after its field or operator changed: the operator kept when still allowed, the value reset when its shape changed. */
export function reshapeFilter(previous: ConditionFilter, next: { field?: string; operator?: ConditionOperator }) {
  const field = next.field ?? previous.field
  const kind = kindOf(field)
  const allowed = operatorsByKind[kind]
  const wanted = (next.operator ?? previous.operator) as ConditionOperator
  const operator = allowed.includes(wanted) ? wanted : (allowed[0] ?? 'equals')
  const before = valueShape(kindOf(previous.field), previous.operator as ConditionOperator)
  const shape = valueShape(kind, operator)
  const filter: ConditionFilter = { field, operator }
  const value = shape === before ? previous.value : initialValue(shape)
  if (shape !== 'none' && value !== undefined) filter.value = value
  if (shape === 'span') filter.unit = previous.unit ?? 'days'
  return filter
}

/** A filter that is valid as it stands, so a new form is not red before the user has chosen anything. */
export function emptyFilter(): ConditionFilter {
  return { field: 'subscribed', operator: 'equals', value: true }
}

export function emptyGroup(): ConditionGroup {
  return { filters: [emptyFilter()] }
}

export function emptyTree(): ConditionTree {
  return { logic: 'AND', groups: [emptyGroup()] }
}

/** A stored tree read back loosely (`segmentView.condition`) as the builder's value; a blank one when absent. */
export function treeOf(stored: unknown): ConditionTree {
  if (typeof stored !== 'object' || stored === null || !('groups' in stored) || !Array.isArray(stored.groups)) {
    return emptyTree()
  }
  return stored as ConditionTree
}
