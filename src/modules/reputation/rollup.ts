import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import type { BusEvent } from '../../events/bus.js'

/**
 * One project-hour's increments of the reputation rollup: all of its mail, and the marketing stream's share of it
 * (the transactional stream is the rest).
 */
export type CountsDelta = {
  projectId: string
  hour: string
  sent: number
  bounces: number
  complaints: number
  marketingSent: number
  marketingBounces: number
  marketingComplaints: number
}

const hourMs = 3_600_000

type Kind = 'sent' | 'bounces' | 'complaints'
const marketingKind = { sent: 'marketingSent', bounces: 'marketingBounces', complaints: 'marketingComplaints' } as const

/** What an event counts toward, if anything. */
export function reputationKind(event: BusEvent): Kind | undefined {
  if (event.name === 'email.sent') return 'sent'
  // Transient bounces (mailbox full, greylisting) are recorded only; they do not count toward the rate.
  if (event.name === 'email.bounce') return event.data.bounceType === 'Permanent' ? 'bounces' : undefined
  if (event.name === 'email.complaint') return 'complaints'
  return undefined
}

/**
 * Sums a dispatched batch per project and hour (UTC) of the events' creation, sorted for a stable lock order;
 * `isMarketing` names the events of the marketing stream (see streams.ts).
 */
export function countReputationEvents(
  events: readonly BusEvent[],
  isMarketing: (event: BusEvent) => boolean = () => false,
): CountsDelta[] {
  const deltas = new Map<string, CountsDelta>()
  for (const event of events) {
    const kind = reputationKind(event)
    if (!kind) continue
    const hour = new Date(Math.floor(event.createdAt.getTime() / hourMs) * hourMs).toISOString()
    const key = `${event.projectId} ${hour}`
    let delta = deltas.get(key)
    if (!delta) {
      delta = {
        projectId: event.projectId,
        hour,
        sent: 0,
        bounces: 0,
        complaints: 0,
        marketingSent: 0,
        marketingBounces: 0,
        marketingComplaints: 0,
      }
      deltas.set(key, delta)
    }
    delta[kind] += 1
    if (isMarketing(event)) delta[marketingKind[kind]] += 1
  }
  return [...deltas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, delta]) => delta)
}

/**
 * Adds the deltas in one statement. Concurrent dispatchers lock rows in the same (sorted) order, so they queue
 * behind each other instead of deadlocking.
 */
export async function addToRollup(db: Executor, deltas: readonly CountsDelta[]): Promise<void> {
  if (deltas.length === 0) return
  await db.execute(sql`
    INSERT INTO reputation_counts (project_id, hour, sent, bounces, complaints, marketing_sent, marketing_bounces,
      marketing_complaints)
    SELECT v."projectId", v.hour, v.sent, v.bounces, v.complaints, v."marketingSent", v."marketingBounces",
      v."marketingComplaints"
    FROM jsonb_to_recordset(${JSON.stringify(deltas)}::jsonb)
      AS v("projectId" uuid, hour timestamptz, sent int, bounces int, complaints int, "marketingSent" int,
        "marketingBounces" int, "marketingComplaints" int)
    ORDER BY v."projectId", v.hour
    ON CONFLICT (project_id, hour) DO UPDATE
    SET sent = reputation_counts.sent + excluded.sent,
        bounces = reputation_counts.bounces + excluded.bounces,
        complaints = reputation_counts.complaints + excluded.complaints,
        marketing_sent = reputation_counts.marketing_sent + excluded.marketing_sent,
        marketing_bounces = reputation_counts.marketing_bounces + excluded.marketing_bounces,
        marketing_complaints = reputation_counts.marketing_complaints + excluded.marketing_complaints`)
}
