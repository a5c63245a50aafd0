import { uuidPattern } from '../db/keyset.js'
import { conditionLimits } from './limits.js'
import { type ConditionOperator, type FieldKind, operatorsByKind } from './operators.js'

export { type ConditionOperator, conditionOperators, type FieldKind, operatorsByKind } from './operators.js'

/** Email activity as `email.<activity>` names it, with the forms Plunk also accepts. */
const emailActivityNames = {
  sent: 'sent',
  delivered: 'delivered',
  delivery: 'delivered',
  opened: 'opened',
  open: 'opened',
  clicked: 'clicked',
  click: 'clicked',
  bounced: 'bounced',
  bounce: 'bounced',
  complained: 'complained',
  complaint: 'complained',
} as const
export type EmailActivity = (typeof emailActivityNames)[keyof typeof emailActivityNames]
/** The `emails` column holding the first moment of each activity. */
export const emailActivityColumns: Record<EmailActivity, string> = {
  sent: 'sent_at',
  delivered: 'delivered_at',
  opened: 'opened_at',
  clicked: 'clicked_at',
  bounced: 'bounced_at',
  complained: 'complained_at',
}
export const emailActivities = Object.keys(emailActivityColumns) as EmailActivity[]

/** What a filter's `field` names. */
export type FieldRef =
  | { kind: 'email' }
  | { kind: 'subscribed' }
  | { kind: 'timestamp'; column: 'createdAt' | 'updatedAt' }
  | { kind: 'data'; path: string[] }
  | { kind: 'event'; name: string }
  | { kind: 'emailActivity'; activity: EmailActivity }
  | { kind: 'segment'; segmentId: string }
export const kindNames: Record<FieldKind, string> = {
  email: 'the email field',
  subscribed: 'the subscribed field',
  timestamp: 'date fields',
  data: 'data fields',
  event: 'event fields',
  emailActivity: 'email activity fields',
  segment: 'segment fields',
}

const knownFields =
  'email, subscribed, createdAt, updatedAt, data.<key>, event.<name>, email.<activity> or segment.<id>'

/**
 * The field a filter names, or why it names none. Plunk names a segment in the field (`segment.<id>`); a bare
 * `segment` field with the id as the value is accepted too.
 */
export function parseField(field: string, value: unknown): FieldRef | string {
  if (field === 'email') return { kind: 'email' }
  if (field === 'subscribed') return { kind: 'subscribed' }
  if (field === 'createdAt' || field === 'updatedAt') return { kind: 'timestamp', column: field }
  const dot = field.indexOf('.')
  const prefix = dot < 0 ? field : field.slice(0, dot)
  const rest = dot < 0 ? '' : field.slice(dot + 1)
  switch (prefix) {
    case 'data': {
      const path = rest.split('.')
      if (path.some((key) => key === '')) return `"${field}" names no data key: use data.<key> or data.<key>.<key>`
      if (path.length > conditionLimits.maxDataPathKeys) {
        return `A data path may have at most ${conditionLimits.maxDataPathKeys} keys`
      }
      return { kind: 'data', path }
    }
    case 'event':
      return rest === '' ? 'event.<name> needs an event name' : { kind: 'event', name: rest }
    case 'email': {
      const activity = Object.hasOwn(emailActivityNames, rest)
        ? emailActivityNames[rest as keyof typeof emailActivityNames]
        : undefined
      if (activity) return { kind: 'emailActivity', activity }
      return `Unknown email activity "${rest}": use ${emailActivities.map((name) => `email.${name}`).join(', ')}`
    }
    case 'segment': {
      const segmentId = dot < 0 ? value : rest
      if (typeof segmentId === 'string' && uuidPattern.test(segmentId)) {
        return { kind: 'segment', segmentId: segmentId.toLowerCase() }
      }
      return dot < 0 ? 'The segment field needs a segment id as its value' : `"${rest}" is not a segment id`
    }
  }
  return `Unknown field "${field}": use ${knownFields}`
}

/** The names a field starts with (before its first dot) that `parseField` reads as one of its families. */
const fieldFamilies = new Set(['email', 'subscribed', 'createdAt', 'updatedAt', 'data', 'event', 'segment'])

/**
 * The field as it is stored. Plunk's documented segment example names the event itself with an event operator
 * (`{field: "purchase", operator: "triggeredWithin"}`): a field of no known family means `event.<field>` there.
 */
export function canonicalField(field: string, operator: ConditionOperator): string {
  const dot = field.indexOf('.')
  const family = dot < 0 ? field : field.slice(0, dot)
  if (!operatorsByKind.event.includes(operator) || fieldFamilies.has(family)) return field
  return `event.${field}`
}
