import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { likePatternSql } from './event-types.js'
import type { StreakChange } from './failure-streak.js'

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
  /** The lease's end as stored (text, to the microsecond): what `releaseLeases` checks is still this claim's. */
  leased_until: string
}

/**
 * Leases due messages of enabled endpoints for `leaseSeconds`, `limit` in all, and for each endpoint at most
 * `perEndpoint` less what this worker already holds of it (`held`, by endpoint id). SKIP LOCKED lets several
 * workers claim at once without taking one message twice. Each worker keeps its own count: reading the leases of
 * all workers from the table walked every lease not yet vacuumed away, at every claim.
 */
export async function claimDueMessages(
  db: Executor,
  options: { perEndpoint: number; limit: number; leaseSeconds: number; held: ReadonlyMap<string, number> },
): Promise<ClaimedMessage[]> {
  const held = [...options.held].map(([endpoint_id, count]) => ({ endpoint_id, count }))
  const result = await db.execute<ClaimedMessage>(sql`
    WITH held AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(held)}::jsonb) AS h(endpoint_id uuid, count int)
    ),
    picked AS (
      SELECT due.id FROM webhook_endpoints AS endpoint
      LEFT JOIN held ON held.endpoint_id = endpoint.id
      CROSS JOIN LATERAL (
        SELECT m.id FROM webhook_messages AS m
        WHERE m.endpoint_id = endpoint.id AND m.status = 'PENDING' AND m.next_attempt_at <= now()
          AND (m.leased_until IS NULL OR m.leased_until <= now())
        ORDER BY m.next_attempt_at
        LIMIT greatest(${options.perEndpoint}::int - coalesce(held.count, 0), 0)
        FOR UPDATE OF m SKIP LOCKED
      ) AS due
      WHERE endpoint.enabled
      LIMIT ${options.limit}
    )
    UPDATE webhook_messages AS m
    SET leased_until = now() + make_interval(secs => ${options.leaseSeconds})
    FROM picked, webhook_endpoints AS endpoint
    -- ANY: the primary key's index, not a hash join over a scan of the whole log, which the planner takes for a
    -- few rows of a small table and keeps taking as it grows.
    WHERE m.id = ANY(ARRAY(SELECT id FROM picked)) AND m.id = picked.id AND endpoint.id = m.endpoint_id
    RETURNING m.id, m.project_id, m.endpoint_id, m.event_type, m.data, m.created_at, m.attempts, endpoint.url,
      array_remove(ARRAY[endpoint.secret,
        CASE WHEN endpoint.previous_secret_expires_at > now() THEN endpoint.previous_secret END], NULL) AS secrets,
      m.leased_until::text AS leased_until`)
  return result.rows
}

/**
 * Ends the leases of claimed messages that will not be attempted under them (they waited too long behind their
 * endpoint, or the process is stopping), so any worker can claim them now. A lease renewed since by another claim
 * is left alone.
 */
export async function releaseLeases(db: Executor, claimed: readonly ClaimedMessage[]): Promise<void> {
  if (claimed.length === 0) return
  await db.execute(sql`
    UPDATE webhook_messages SET leased_until = NULL
    WHERE id = ANY(${sql.param(claimed.map((message) => message.id))}::uuid[])
      AND (id, leased_until) IN (
        SELECT * FROM unnest(${sql.param(claimed.map((message) => message.id))}::uuid[],
          ${sql.param(claimed.map((message) => message.leased_until))}::timestamptz[]))`)
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

/**
 * Logs a batch of attempts and moves each message on (delivered, due again at `retryAt`, or failed; the lease
 * ends), and applies the batch's failure streak changes (failure-streak.ts) to their endpoints: one statement,
 * whatever the batch's size. An endpoint's row is written only when its streak starts or ends.
 *
 * `waitForFlush: false` commits without waiting for the WAL to reach the disk (synchronous_commit off for this
 * statement's transaction alone): an endpoint's next attempts wait for this record, and the flush was a large part
 * of that wait on a busy disk. Should PostgreSQL itself crash within the WAL writer's delay, the record is lost
 * and the message is sent again when its lease ends, with the same webhook-id: the at-least-once delivery a
 * receiver already handles. A worker's crash loses nothing: the commit is in PostgreSQL.
 */
export async function recordAttempts(
  db: Executor,
  outcomes: readonly AttemptOutcome[],
  streaks: readonly StreakChange[],
  options: { waitForFlush: boolean },
): Promise<void> {
  const rows = outcomes.map((outcome) => ({
    message_id: outcome.messageId,
    endpoint_id: outcome.endpointId,
    at: outcome.at.toISOString(),
    succeeded: outcome.succeeded,
    response_status: outcome.responseStatus,
    response_body: outcome.responseBody,
    error: outcome.error,
    latency_ms: outcome.latencyMs,
    url: outcome.url,
    status: outcome.succeeded ? 'DELIVERED' : outcome.retryAt ? 'PENDING' : 'FAILED',
    retry_at: outcome.retryAt?.toISOString() ?? null,
  }))
  const changes = streaks.map((streak) => ({
    endpoint_id: streak.endpointId,
    change: streak.change,
    at: streak.change === 'clear' ? null : streak.at.toISOString(),
  }))
  await db.execute(sql`
    WITH outcome AS (
      SELECT o.* FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS o(message_id uuid, endpoint_id uuid,
        at timestamptz, succeeded boolean, response_status int, response_body text, error text, latency_ms int,
        url text, status text, retry_at timestamptz)
      ${options.waitForFlush ? sql`` : sql`CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait`}
    ),
    moved AS (
      UPDATE webhook_messages AS m
      SET status = o.status, attempts = m.attempts + 1, last_attempt_at = o.at, leased_until = NULL,
        next_attempt_at = coalesce(o.retry_at, m.next_attempt_at)
      FROM outcome AS o
      -- ANY: the primary key's index (see claimDueMessages).
      WHERE m.id = ANY(ARRAY(SELECT message_id FROM outcome)) AND m.id = o.message_id
      RETURNING m.id
    ),
    -- Of messages still there: one deleted meanwhile (its endpoint was) has no log to add to.
    logged AS (
      INSERT INTO webhook_attempts (message_id, endpoint_id, at, succeeded, response_status, response_body, error,
        latency_ms, url)
      SELECT o.message_id, o.endpoint_id, o.at, o.succeeded, o.response_status, o.response_body, o.error,
        o.latency_ms, o.url
      FROM outcome AS o JOIN moved ON moved.id = o.message_id
    ),
    streak AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(changes)}::jsonb) AS s(endpoint_id uuid, change text, at timestamptz)
    )
    UPDATE webhook_endpoints AS endpoint
    SET failing_since = CASE s.change WHEN 'clear' THEN NULL WHEN 'restart' THEN s.at
      ELSE coalesce(endpoint.failing_since, s.at) END
    FROM streak AS s
    WHERE endpoint.id = s.endpoint_id
      AND CASE s.change WHEN 'clear' THEN endpoint.failing_since IS NOT NULL WHEN 'restart' THEN true
        ELSE endpoint.failing_since IS NULL END`)
}

export type DisabledEndpoint = { id: string; project_id: string; url: string; failing_since: string }

/**
 * Disables the endpoints whose streak has lasted `disableAfterMs` at their latest failure, and returns them, once:
 * the WHERE is checked again on each locked row, so of two batches ending together only one disables an endpoint
 * (and publishes the event).
 */
export async function disableFailingEndpoints(
  db: Executor,
  failures: readonly { endpointId: string; at: Date }[],
  disableAfterMs: number,
): Promise<DisabledEndpoint[]> {
  if (failures.length === 0) return []
  const rows = failures.map((failure) => ({ endpoint_id: failure.endpointId, at: failure.at.toISOString() }))
  const result = await db.execute<DisabledEndpoint>(sql`
    UPDATE webhook_endpoints AS endpoint
    SET enabled = false, disabled_reason = 'failing', updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS f(endpoint_id uuid, at timestamptz)
    WHERE endpoint.id = f.endpoint_id AND endpoint.enabled
      AND endpoint.failing_since <= f.at - make_interval(secs => ${disableAfterMs / 1000})
    RETURNING endpoint.id, endpoint.project_id, endpoint.url, endpoint.failing_since`)
  return result.rows
}
