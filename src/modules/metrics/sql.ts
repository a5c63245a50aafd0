import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'

export type OutboxState = { queued: number; sending: number; oldestQueuedAgeSeconds: number }

/**
 * Emails waiting in the outbox (held ones of paused projects and retries not yet due included) and being
 * sent. Both statuses have partial indexes, so this walks the backlog, not the table.
 */
export async function readOutboxState(db: Executor): Promise<OutboxState> {
  const result = await db.execute<{ status: string; count: number; age: number | null }>(sql`
    SELECT status, count(*)::float8 AS count, extract(epoch FROM now() - min(created_at))::float8 AS age
    FROM emails WHERE status IN ('QUEUED', 'SENDING') GROUP BY status`)
  const queued = result.rows.find((row) => row.status === 'QUEUED')
  return {
    queued: queued?.count ?? 0,
    sending: result.rows.find((row) => row.status === 'SENDING')?.count ?? 0,
    oldestQueuedAgeSeconds: Math.max(0, queued?.age ?? 0),
  }
}

/** Counting stops here: a backlog this deep is an alarm already, and counting it all would slow the scrape. */
export const pendingEventsCountCap = 100_000

export type EventBusState = { pendingEvents: number; lagSeconds: number }

/**
 * Events committed past the dispatcher's stored position (capped), and the age of the next one to dispatch:
 * both read along the (tx_id, id) index the dispatcher itself walks.
 */
export async function readEventBusState(db: Executor): Promise<EventBusState> {
  const result = await db.execute<{ pending: number; age: number | null }>(sql`
    SELECT count(*)::float8 AS pending, extract(epoch FROM now() - min(e.created_at))::float8 AS age
    FROM event_bus_positions p
    CROSS JOIN LATERAL (
      SELECT created_at FROM events WHERE (tx_id, id) > (p.tx_id, p.event_id)
      ORDER BY tx_id, id LIMIT ${pendingEventsCountCap}) e
    WHERE p.consumer = 'subscribers'`)
  const row = result.rows[0]
  return { pendingEvents: row?.pending ?? 0, lagSeconds: Math.max(0, row?.age ?? 0) }
}

export type ReputationState = {
  sent: number
  bounces: number
  complaints: number
  pausedProjects: number
}

/**
 * All projects' 7-day totals from the hourly reputation rollup (the guard's window: this hour and the 167
 * before it), read per project along the rollup's primary key, and how many projects the guard has paused.
 */
export async function readReputationState(db: Executor): Promise<ReputationState> {
  const result = await db.execute<ReputationState>(sql`
    SELECT COALESCE(sum(c.sent), 0)::float8 AS sent, COALESCE(sum(c.bounces), 0)::float8 AS bounces,
      COALESCE(sum(c.complaints), 0)::float8 AS complaints,
      (SELECT count(*) FROM projects WHERE sending_paused_reason IS NOT NULL)::float8 AS "pausedProjects"
    FROM projects p
    CROSS JOIN LATERAL (
      SELECT sent, bounces, complaints FROM reputation_counts
      WHERE project_id = p.id AND hour >= date_trunc('hour', now(), 'UTC') - interval '167 hours') c`)
  return result.rows[0] ?? { sent: 0, bounces: 0, complaints: 0, pausedProjects: 0 }
}
