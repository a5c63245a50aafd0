import { and, asc, eq, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { decodeCursor, keysetPage, timestampText, timestampTextPattern, uuidPattern } from '../../db/keyset.js'
import { webhookAttempts, webhookMessages } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { webhookTestEvent } from './event-types.js'
import { webhookPayload } from './payload.js'
import {
  maxReplayDays,
  type WebhookMessageDetail,
  type WebhookMessageListQuery,
  type WebhookMessageView,
  type WebhookReplay,
} from './schemas.js'
import { requireWebhook } from './service.js'

const dayMs = 86_400_000
/** A first page's `total` counts this many messages at most. */
const maxListTotal = 10_000

type MessageRow = typeof webhookMessages.$inferSelect

function toView(row: MessageRow): WebhookMessageView {
  return {
    id: row.id,
    eventType: row.eventType,
    eventId: row.eventId,
    status: row.status,
    attemptCount: row.attempts,
    nextAttemptAt: row.status === 'PENDING' ? row.nextAttemptAt : null,
    lastAttemptAt: row.lastAttemptAt,
    createdAt: row.createdAt,
  }
}

type ListedRow = {
  sort_value: string
  id: string
  event_type: string
  event_id: string | null
  status: WebhookMessageView['status']
  attempts: number
  next_attempt_at: string
  last_attempt_at: string | null
  created_at: string
}

/** The endpoint's delivery log, newest first on (created_at, id). */
export async function listWebhookMessages(
  db: Executor,
  projectId: string,
  endpointId: string,
  query: WebhookMessageListQuery,
) {
  await requireWebhook(db, projectId, endpointId)
  const filters = [sql`endpoint_id = ${endpointId}`]
  if (query.status) filters.push(sql`status = ${query.status}`)
  const where = sql.join(filters, sql` AND `)
  let after = sql`true`
  if (query.cursor) {
    const parts = decodeCursor(query.cursor, 2)
    const [at, id] = parts ?? []
    if (!at || !id || !timestampTextPattern.test(at) || !uuidPattern.test(id)) {
      throw new AppError('BAD_REQUEST', 'Invalid cursor')
    }
    after = sql`(created_at, id) < (${at}::timestamptz, ${id}::uuid)`
  }
  const result = await db.execute<ListedRow>(sql`
    SELECT ${timestampText(sql`created_at`)} AS sort_value, id, event_type, event_id, status, attempts,
      next_attempt_at, last_attempt_at, created_at
    FROM webhook_messages WHERE ${where} AND ${after}
    ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`)
  const rows = result.rows.map((row) => ({
    sortValue: row.sort_value,
    view: {
      id: row.id,
      eventType: row.event_type,
      eventId: row.event_id,
      status: row.status,
      attemptCount: row.attempts,
      nextAttemptAt: row.status === 'PENDING' ? new Date(row.next_attempt_at) : null,
      lastAttemptAt: row.last_attempt_at === null ? null : new Date(row.last_attempt_at),
      createdAt: new Date(row.created_at),
    },
  }))
  return keysetPage(rows, query, {
    view: (row) => row.view,
    cursorOf: (last) => [last.sortValue, last.view.id],
    countTotal: async () => {
      const counted = await db.execute<{ total: number }>(sql`
        SELECT count(*)::int AS total FROM (SELECT 1 FROM webhook_messages WHERE ${where} LIMIT ${maxListTotal}) AS capped`)
      return counted.rows[0]?.total ?? 0
    },
  })
}

async function findMessage(db: Executor, projectId: string, endpointId: string, messageId: string) {
  const [row] = await db
    .select()
    .from(webhookMessages)
    .where(
      and(
        eq(webhookMessages.projectId, projectId),
        eq(webhookMessages.endpointId, endpointId),
        eq(webhookMessages.id, messageId),
      ),
    )
  if (!row) throw notFound('Webhook message')
  return row
}

/** One message: its body and every attempt, oldest first. */
export async function getWebhookMessage(
  db: Executor,
  projectId: string,
  endpointId: string,
  messageId: string,
): Promise<WebhookMessageDetail> {
  await requireWebhook(db, projectId, endpointId)
  const row = await findMessage(db, projectId, endpointId, messageId)
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.messageId, messageId))
    .orderBy(asc(webhookAttempts.id))
  return {
    ...toView(row),
    payload: webhookPayload(row),
    attempts: attempts.map(({ at, succeeded, responseStatus, responseBody, error, latencyMs, url }) => ({
      at,
      succeeded,
      responseStatus,
      responseBody,
      error,
      latencyMs,
      url,
    })),
  }
}

/** Not while an attempt is in flight: the message would be sent twice at once. */
const notInFlight = sql`(${webhookMessages.leasedUntil} IS NULL OR ${webhookMessages.leasedUntil} <= now())`

/** Sends the message again now, with the same webhook-id and a whole new round of retries. */
export async function retryWebhookMessage(
  db: Executor,
  projectId: string,
  endpointId: string,
  messageId: string,
): Promise<WebhookMessageView> {
  await requireWebhook(db, projectId, endpointId)
  await findMessage(db, projectId, endpointId, messageId)
  const [row] = await db
    .update(webhookMessages)
    .set({ status: 'PENDING', attempts: 0, nextAttemptAt: sql`now()` })
    .where(and(eq(webhookMessages.endpointId, endpointId), eq(webhookMessages.id, messageId), notInFlight))
    .returning()
  if (!row) throw new AppError('CONFLICT', 'This message is being delivered right now; retry once the attempt ends')
  return toView(row)
}

/**
 * Sends again every message of the endpoint made in [from, to) (at most `maxReplayDays` wide), each with its own
 * webhook-id and a new round of retries; those in flight right now are left to their attempt.
 */
export async function replayWebhookMessages(
  db: Executor,
  projectId: string,
  endpointId: string,
  range: WebhookReplay,
): Promise<{ replayed: number }> {
  if (range.from.getTime() >= range.to.getTime()) {
    throw new AppError('VALIDATION_ERROR', 'Request validation failed', {
      errors: [{ field: 'from', message: 'from must be before to', code: 'custom' }],
    })
  }
  if (range.to.getTime() - range.from.getTime() > maxReplayDays * dayMs) {
    throw new AppError('VALIDATION_ERROR', 'Request validation failed', {
      errors: [{ field: 'to', message: `a replay covers at most ${maxReplayDays} days`, code: 'custom' }],
    })
  }
  await requireWebhook(db, projectId, endpointId)
  const result = await db.execute(sql`
    UPDATE webhook_messages SET status = 'PENDING', attempts = 0, next_attempt_at = now()
    WHERE endpoint_id = ${endpointId} AND project_id = ${projectId}
      AND created_at >= ${range.from}::timestamptz AND created_at < ${range.to}::timestamptz AND ${notInFlight}`)
  return { replayed: result.rowCount ?? 0 }
}

/** A `webhook.test` message to this endpoint only, sent like any other. */
export async function sendTestMessage(
  db: Executor,
  projectId: string,
  endpointId: string,
): Promise<WebhookMessageView> {
  const endpoint = await requireWebhook(db, projectId, endpointId)
  if (!endpoint.enabled) throw new AppError('CONFLICT', 'This webhook is disabled; enable it to send a test event')
  const [row] = await db
    .insert(webhookMessages)
    .values({
      projectId,
      endpointId,
      eventType: webhookTestEvent,
      data: { message: 'A test event from Mailroom', webhookId: endpointId },
    })
    .returning()
  if (!row) throw new Error('webhook test message insert returned no row')
  return toView(row)
}

/** Drops messages (their attempts cascade) made more than `retentionDays` ago; returns how many. */
export async function deleteExpiredWebhookMessages(db: Executor, retentionDays: number): Promise<number> {
  const result = await db.execute(sql`
    DELETE FROM webhook_messages WHERE id IN (
      SELECT id FROM webhook_messages WHERE created_at < now() - make_interval(days => ${retentionDays}) LIMIT 10000)`)
  return result.rowCount ?? 0
}
