import type { AppContext } from '../../context.js'
import { allOk, settleEach } from '../../db/batcher.js'
import { publishEvents } from '../../events/bus.js'
import { wakeEventDispatcher } from '../../events/wake.js'
import { wakeSystemMail } from '../system-mail/service.js'
import { sendWebhook, WebhookError, webhookResolverOf } from '../workflows/webhook/index.js'
import { createAttemptRecorder } from './attempt-recorder.js'
import { webhookDisabledEvent } from './event-types.js'
import { streakChangesOf } from './failure-streak.js'
import { noticeOwnersOfDisabledWebhook } from './owner-notice.js'
import { webhookPayload } from './payload.js'
import { openWebhookSecret, webhookSignature } from './signature.js'
import { type AttemptOutcome, type ClaimedMessage, disableFailingEndpoints, recordAttempts } from './sql.js'

/** The spec's webhook timeout, every redirect and reading the answer included. */
export const webhookTimeoutMs = 10_000
const userAgent = 'Mailroom-Webhook/1'

type Answer = {
  succeeded: boolean
  responseStatus: number | null
  responseBody: string
  error: string | null
  url: string
}

/** Opened secrets per context, by endpoint and sealed text: a rotation seals a new text, so none is ever stale. */
const openedSecrets = new WeakMap<AppContext, Map<string, string>>()
const maxOpenedSecrets = 10_000

/** The endpoint's signing secret, opened once rather than for every message (AES-GCM and its buffers each time). */
function openedSecret(ctx: AppContext, endpointId: string, sealed: string): string {
  let opened = openedSecrets.get(ctx)
  if (!opened) {
    opened = new Map()
    openedSecrets.set(ctx, opened)
  }
  const key = `${endpointId}:${sealed}`
  let secret = opened.get(key)
  if (secret === undefined) {
    secret = openWebhookSecret(ctx.config.secret, endpointId, sealed)
    if (opened.size >= maxOpenedSecrets) opened.clear()
    opened.set(key, secret)
  }
  return secret
}

/** One POST of the message, signed for this attempt; never throws (no answer is an answer too, with `error`). */
async function post(ctx: AppContext, message: ClaimedMessage): Promise<Answer> {
  const body = JSON.stringify(
    webhookPayload({ eventType: message.event_type, createdAt: new Date(message.created_at), data: message.data }),
  )
  const timestampSeconds = Math.floor(Date.now() / 1000)
  const secrets = message.secrets.map((sealed) => openedSecret(ctx, message.endpoint_id, sealed))
  const headers = {
    'user-agent': userAgent,
    'content-type': 'application/json',
    'webhook-id': message.id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': webhookSignature(secrets, message.id, timestampSeconds, body),
  }
  try {
    const answer = await sendWebhook(
      { url: message.url, method: 'POST', headers, body },
      { resolver: webhookResolverOf(ctx), allowPrivate: ctx.config.webhookAllowPrivate, timeoutMs: webhookTimeoutMs },
    )
    return {
      succeeded: answer.ok,
      responseStatus: answer.status,
      responseBody: answer.responsePreview,
      error: null,
      url: answer.url,
    }
  } catch (err) {
    const error = err instanceof WebhookError ? err.message : `the request failed: ${String(err)}`
    return { succeeded: false, responseStatus: null, responseBody: '', error, url: message.url }
  }
}

/** When to try again after the `attempts`-th failed attempt of this round, or null when the schedule is used up. */
function retryAt(ctx: AppContext, attempts: number, at: Date): Date | null {
  const delayMs = ctx.config.webhooks.retryScheduleMs[attempts - 1]
  return delayMs === undefined ? null : new Date(at.getTime() + delayMs)
}

/** One attempt of a claimed message, not yet recorded. The HTTP call holds no transaction open. */
async function attempt(ctx: AppContext, message: ClaimedMessage): Promise<AttemptOutcome> {
  const started = performance.now()
  const at = new Date()
  const answer = await post(ctx, message)
  return {
    messageId: message.id,
    endpointId: message.endpoint_id,
    at,
    ...answer,
    latencyMs: Math.round(performance.now() - started),
    retryAt: answer.succeeded ? null : retryAt(ctx, message.attempts + 1, new Date()),
  }
}

/**
 * Records a batch of attempts in one transaction: the attempts, the messages' next states and the endpoints'
 * failure streaks (one statement when all succeeded), and an endpoint that has failed for
 * WEBHOOK_DISABLE_AFTER_HOURS is disabled there, with the `webhook.disabled` event and a system email to each owner
 * of the project.
 */
async function recordBatch(ctx: AppContext, outcomes: readonly AttemptOutcome[]): Promise<void> {
  const streaks = streakChangesOf(outcomes)
  const failing = streaks.flatMap((streak) =>
    streak.change === 'clear' ? [] : [{ endpointId: streak.endpointId, at: streak.lastFailureAt }],
  )
  if (failing.length === 0) {
    // Successes only: see recordAttempts. A batch that may disable an endpoint waits for its flush.
    await recordAttempts(ctx.db, outcomes, streaks, { waitForFlush: false })
    return
  }
  const disabled = await ctx.db.transaction(async (tx) => {
    await recordAttempts(tx, outcomes, streaks, { waitForFlush: true })
    const endpoints = await disableFailingEndpoints(tx, failing, ctx.config.webhooks.disableAfterMs)
    for (const endpoint of endpoints) {
      await publishEvents(tx, [
        {
          projectId: endpoint.project_id,
          contactId: null,
          name: webhookDisabledEvent,
          data: {
            webhookId: endpoint.id,
            url: endpoint.url,
            failingSince: new Date(endpoint.failing_since).toISOString(),
          },
        },
      ])
      await noticeOwnersOfDisabledWebhook(ctx, tx, {
        projectId: endpoint.project_id,
        url: endpoint.url,
        failingSince: new Date(endpoint.failing_since),
      })
    }
    return endpoints
  })
  for (const endpoint of disabled) {
    ctx.log.warn({ webhookId: endpoint.id, projectId: endpoint.project_id }, 'webhook endpoint disabled after failing')
  }
  if (disabled.length > 0) {
    wakeEventDispatcher(ctx.pool)
    wakeSystemMail(ctx)
  }
}

/** Per context (tests run several in one process): see createAttemptRecorder. */
const recorders = new WeakMap<AppContext, (outcome: AttemptOutcome) => Promise<void>>()

/**
 * Attempts are recorded in batches (attempt-recorder.ts). A batch that fails (two processes' batches deadlocking
 * on the same failing endpoints) is recorded again one attempt at a time.
 */
function recorderOf(ctx: AppContext): (outcome: AttemptOutcome) => Promise<void> {
  let recorder = recorders.get(ctx)
  if (!recorder) {
    recorder = createAttemptRecorder({
      maxSize: 500,
      maxInFlight: 3,
      async run(outcomes) {
        try {
          await recordBatch(ctx, outcomes)
          return allOk(outcomes.map(() => undefined))
        } catch (err) {
          if (outcomes.length === 1) throw err
          ctx.log.warn(
            { err, attempts: outcomes.length },
            'webhook attempts recorded one by one after their batch failed',
          )
          return settleEach(outcomes, (outcome) => recordBatch(ctx, [outcome]))
        }
      },
    })
    recorders.set(ctx, recorder)
  }
  return recorder
}

/** Makes one attempt of a claimed message and records it (with the others ending meanwhile). */
export async function deliverMessage(ctx: AppContext, message: ClaimedMessage): Promise<void> {
  await recorderOf(ctx)(await attempt(ctx, message))
}
