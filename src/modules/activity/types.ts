import { type SQL, sql } from 'drizzle-orm'
import { internalEventNameSql } from '../analytics/sql.js'

/** Activity types of the feed, named as Plunk's dashboard names them (its `ActivityType`). */
export const activityTypes = [
  'event.triggered',
  'email.sent',
  'email.delivered',
  'email.received',
  'email.opened',
  'email.clicked',
  'email.machine_opened',
  'email.machine_clicked',
  'email.bounced',
  'email.complaint',
  'contact.subscribed',
  'contact.unsubscribed',
  'segment.entry',
  'segment.exit',
  'workflow.started',
  'workflow.completed',
  'workflow.failed',
] as const
export type ActivityType = (typeof activityTypes)[number]

/** Internal event name → activity type, for the names that map one to one. */
const typeByEventName = new Map<string, ActivityType>(
  Object.entries({
    'email.sent': 'email.sent',
    'email.delivery': 'email.delivered',
    'email.received': 'email.received',
    'email.open': 'email.opened',
    'email.click': 'email.clicked',
    'email.machine_open': 'email.machine_opened',
    'email.machine_click': 'email.machine_clicked',
    'email.bounce': 'email.bounced',
    'email.complaint': 'email.complaint',
    'contact.subscribed': 'contact.subscribed',
    'contact.unsubscribed': 'contact.unsubscribed',
    'workflow.started': 'workflow.started',
    'workflow.completed': 'workflow.completed',
    'workflow.failed': 'workflow.failed',
  } satisfies Record<string, ActivityType>),
)

const segmentEventPattern = /^segment\.[^.]+\.(entry|exit)$/

/**
 * An event's activity type. Internal names this list does not know yet (another module's new `email.*`)
 * pass through unchanged rather than being shown as custom events.
 */
export function activityTypeOf(eventName: string): string {
  const known = typeByEventName.get(eventName)
  if (known) return known
  const segment = segmentEventPattern.exec(eventName)
  if (segment) return `segment.${segment[1]}`
  if (isInternalEventName(eventName)) return eventName
  return 'event.triggered'
}

function isInternalEventName(name: string): boolean {
  return (
    name.startsWith('email.') ||
    name.startsWith('webhook.') ||
    typeByEventName.has(name) ||
    segmentEventPattern.test(name)
  )
}

/** Condition on the events table (`column` is its name) selecting the given activity types; `false` when no type comes from events. */
export function eventNamesOfTypes(column: SQL, types: readonly ActivityType[]): SQL {
  const names = [...typeByEventName].filter(([, type]) => types.includes(type)).map(([name]) => name)
  const conditions: SQL[] = []
  if (names.length > 0) conditions.push(sql`${column} = ANY(${sql.param(names)}::text[])`)
  if (types.includes('event.triggered')) conditions.push(sql`NOT ${internalEventNameSql(column)}`)
  if (types.includes('segment.entry')) conditions.push(sql`${column} ~ '^segment\\.[^.]+\\.entry$'`)
  if (types.includes('segment.exit')) conditions.push(sql`${column} ~ '^segment\\.[^.]+\\.exit$'`)
  return conditions.length > 0 ? sql`(${sql.join(conditions, sql` OR `)})` : sql`false`
}
