import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'

/** What an endpoint is told when Mailroom disables it after failing for days; it goes out like any event. */
export const webhookDisabledEvent = 'webhook.disabled'
/** The type of `POST /webhooks/:id/test`'s message. */
export const webhookTestEvent = 'webhook.test'

/** Names Mailroom emits itself (spec "Internal events", plus the machine opens and the lifecycle events). */
const internalNames = [
  'email.sent',
  'email.delivery',
  'email.open',
  'email.click',
  'email.machine_open',
  'email.machine_click',
  'email.bounce',
  'email.complaint',
  'email.received',
  'contact.subscribed',
  'contact.unsubscribed',
  'workflow.started',
  'workflow.completed',
  'workflow.failed',
  'campaign.scheduled',
  'billing.limit_warning',
  'billing.campaign_blocked',
  webhookDisabledEvent,
  webhookTestEvent,
]

/** Families of internal names: a sample stands for each when a pattern is matched against them. */
const internalFamilies = [
  { pattern: /^segment\.[^.]+\.(entry|exit)$/, samples: ['segment.any-segment.entry', 'segment.any-segment.exit'] },
]

/** The pattern as a RegExp over a whole name: `*` is any run of characters, everything else itself. */
function patternRegExp(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${escaped.join('.*')}$`)
}

function matchesInternal(pattern: string): boolean {
  const regexp = patternRegExp(pattern)
  if (internalNames.some((name) => regexp.test(name))) return true
  return internalFamilies.some(
    (family) => family.samples.some((sample) => regexp.test(sample)) || family.pattern.test(pattern),
  )
}

/**
 * Warnings for the patterns that match nothing known: no internal name, and (for an exact name) no event this project
 * has tracked. Allowed all the same, since a custom event may be tracked for the first time later.
 */
export async function unknownEventTypeWarnings(
  db: Executor,
  projectId: string,
  patterns: readonly string[],
): Promise<string[]> {
  const unknown = patterns.filter((pattern) => !matchesInternal(pattern))
  const exact = unknown.filter((pattern) => !pattern.includes('*'))
  // One probe per exact name on the (project_id, name, created_at) index.
  const tracked = new Set<string>()
  if (exact.length > 0) {
    const result = await db.execute<{ name: string }>(sql`
      SELECT name FROM unnest(${sql.param(exact)}::text[]) AS wanted(name)
      WHERE EXISTS (SELECT 1 FROM events WHERE project_id = ${projectId} AND events.name = wanted.name)`)
    for (const row of result.rows) tracked.add(row.name)
  }
  return unknown
    .filter((pattern) => !tracked.has(pattern))
    .map((pattern) =>
      pattern.includes('*')
        ? `"${pattern}" matches no event type Mailroom emits; it will match custom events of that form`
        : `"${pattern}" is not an event type Mailroom emits nor one this project has tracked yet`,
    )
}

/** An event-type pattern column as a LIKE pattern: `%` and `_` taken literally, `*` any run of characters. */
export function likePatternSql(pattern: SQL): SQL {
  return sql`replace(replace(replace(replace(${pattern}, '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%')`
}
