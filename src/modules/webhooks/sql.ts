import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { likePatternSql } from './event-types.js'

/**
 * One message per (event, enabled endpoint of the event's project with a matching pattern), in one statement.
 * The message keeps the event's time, type and payload. Returns how many it made.
 */
export async function insertMessagesForEvents(db: Executor, eventIds: readonly string[]): Promise<number> {
  const result = await db.execute(sql`
    INSERT INTO webhook_messages (project_id, endpoint_id, event_id, event_type, data, created_at)
    SELECT ev.project_id, endpoint.id, ev.id, ev.name, ev.data, ev.created_at
    FROM events AS ev
    JOIN webhook_endpoints AS endpoint ON endpoint.project_id = ev.project_id AND endpoint.enabled
    WHERE ev.id = ANY(${sql.param(eventIds)}::uuid[])
      AND EXISTS (
        SELECT 1 FROM unnest(endpoint.event_types) AS wanted(pattern)
        WHERE ev.name LIKE ${likePatternSql(sql`wanted.pattern`)})`)
  return result.rowCount ?? 0
}

/** A message claimed for one attempt, with what the attempt needs of its endpoint. */
export type ClaimedMessage = {
  id: string
  project_id: string
  endpoint_id: string
  event_type: string
  data: Record<string, unknown>
  created_at: string
  attempts: number
  url: string
  /** The current secret, and the one before the last rotation while it still signs; sealed (signature.ts). */
  secrets: string[]
}

/**
 * Leases due messages of enabled endpoints for `leaseSeconds`, at most `perEndpoint` in flight per endpoint
 * (counting the leases other workers hold), `limit` in all. SKIP LOCKED lets several workers claim at once without
 * taking one message twice; two claiming at the same moment can each see the other's leases as not yet there, so
 * an endpoint has at most `perEndpoint` in flight per worker.
 */
export async function claimDueMessages(
  db: Executor,
  options: { perEndpoint: number; limit: number; leaseSeconds: number },
): Promise<ClaimedMessage[]> {
  const result = await db.execute<ClaimedMessage>(sql`
    WITH picked AS (
      SELECT due.id FROM webhook_endpoints AS endpoint
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS busy FROM webhook_messages AS leased
        WHERE leased.endpoint_id = endpoint.id AND leased.status = 'PENDING' AND leased.leased_until IS NOT NULL
          AND leased.leased_until > now()
      ) AS flight
      CROSS JOIN LATERAL (
        SELECT m.id FROM webhook_messages AS m
        WHERE m.endpoint_id = endpoint.id AND m.status = 'PENDING' AND m.next_attempt_at <= now()
          AND (m.leased_until IS NULL OR m.leased_until <= now())
        ORDER BY m.next_attempt_at
        LIMIT greatest(${options.perEndpoint}::int - flight.busy, 0)
        FOR UPDATE OF m SKIP LOCKED
      ) AS due
      WHERE endpoint.enabled
        AND EXISTS (
          SELECT 1 FROM webhook_messages AS any_due
          WHERE any_due.endpoint_id = endpoint.id AND any_due.status = 'PENDING' AND any_due.next_attempt_at <= now())
      LIMIT ${options.limit}
    )
    UPDATE webhook_messages AS m
    SET leased_until = now() + make_interval(secs => ${options.leaseSeconds})
    FROM picked, webhook_endpoints AS endpoint
    WHERE m.id = picked.id AND endpoint.id = m.endpoint_id
    RETURNING m.id, m.project_id, m.endpoint_id, m.event_type, m.data, m.created_at, m.attempts, endpoint.url,
      array_remove(ARRAY[endpoint.secret,
        CASE WHEN endpoint.previous_secret_expires_at > now() THEN endpoint.previous_secret END], NULL) AS secrets`)
  return result.rows
}

/** Whether any message waits for an attempt: the loop's cheap look (the partial index on pending messages). */
export async function anyMessageDue(db: Executor): Promise<boolean> {
  const result = await db.execute<{ due: boolean }>(sql`
    SELECT EXISTS (
      SELECT 1 FROM webhook_messages
      WHERE status = 'PENDING' AND next_attempt_at <= now() AND (leased_until IS NULL OR leased_until <= now())
    ) AS due`)
  return result.rows[0]?.due ?? false
}

export type AttemptOutcome = {
  messageId: string
  endpointId: string
  at: Date
  succeeded: boolean
  responseStatus: number | null
  responseBody: string
  error: string | null
  latencyMs: number
  url: string
  /** After a failure: when to try again, or null when the schedule is used up (the message has failed). */
  retryAt: Date | null
}

/** Logs the attempt and moves the message on: delivered, due again at `retryAt`, or failed; the lease ends. */
export async function recordAttempt(db: Executor, outcome: AttemptOutcome): Promise<void> {
  await db.execute(sql`
    INSERT INTO webhook_attempts (message_id, endpoint_id, at, succeeded, response_status, response_body, error,
      latency_ms, url)
    VALUES (${outcome.messageId}, ${outcome.endpointId}, ${outcome.at}, ${outcome.succeeded},
      ${outcome.responseStatus}, ${outcome.responseBody}, ${outcome.error}, ${outcome.latencyMs}, ${outcome.url})`)
  const status = outcome.succeeded ? 'DELIVERED' : outcome.retryAt ? 'PENDING' : 'FAILED'
  await db.execute(sql`
    UPDATE webhook_messages
    SET status = ${status}, attempts = attempts + 1, last_attempt_at = ${outcome.at}, leased_until = NULL,
      next_attempt_at = coalesce(${outcome.retryAt}::timestamptz, next_attempt_at)
    WHERE id = ${outcome.messageId}`)
}

/**
 * Keeps the endpoint's failure streak: cleared by a success, started by the first failure after one. An endpoint
 * whose streak has lasted `disableAfterMs` is disabled; returns it then (once: it is no longer enabled after).
 */
export async function updateFailureStreak(
  db: Executor,
  endpointId: string,
  succeeded: boolean,
  at: Date,
  disableAfterMs: number,
): Promise<{ id: string; project_id: string; url: string; failing_since: string } | undefined> {
  if (succeeded) {
    await db.execute(sql`
      UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${endpointId} AND failing_since IS NOT NULL`)
    return undefined
  }
  await db.execute(sql`
    UPDATE webhook_endpoints SET failing_since = ${at}::timestamptz WHERE id = ${endpointId} AND failing_since IS NULL`)
  // A statement of its own: its WHERE is checked again on the locked row, so of two attempts ending together
  // only one disables the endpoint (and publishes the event).
  const result = await db.execute<{ id: string; project_id: string; url: string; failing_since: string }>(sql`
    UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', updated_at = now()
    WHERE id = ${endpointId} AND enabled
      AND failing_since <= ${at}::timestamptz - make_interval(secs => ${disableAfterMs / 1000})
    RETURNING id, project_id, url, failing_since`)
  return result.rows[0]
}
