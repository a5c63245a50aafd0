import type { AppContext } from '../../context.js'
import { publishEvents } from '../../events/bus.js'
import { wakeEventDispatcher } from '../../events/wake.js'
import { wakeSystemMail } from '../system-mail/service.js'
import { sendWebhook, WebhookError, webhookResolverOf } from '../workflows/webhook/index.js'
import { webhookDisabledEvent } from './event-types.js'
import { noticeOwnersOfDisabledWebhook } from './owner-notice.js'
import { webhookPayload } from './payload.js'
import { openWebhookSecret, webhookSignature } from './signature.js'
import { type ClaimedMessage, recordAttempt, updateFailureStreak } from './sql.js'

/** The spec's webhook timeout, every redirect and reading the answer included. */
const timeoutMs = 10_000
const userAgent = 'Mailroom-Webhook/1'

type Answer = {
  succeeded: boolean
  responseStatus: number | null
  responseBody: string
  error: string | null
  url: string
}

/** One POST of the message, signed for this attempt; never throws (no answer is an answer too, with `error`). */
async function post(ctx: AppContext, message: ClaimedMessage): Promise<Answer> {
  const body = JSON.stringify(
    webhookPayload({ eventType: message.event_type, createdAt: new Date(message.created_at), data: message.data }),
  )
  const timestampSeconds = Math.floor(Date.now() / 1000)
  const secrets = message.secrets.map((sealed) => openWebhookSecret(ctx.config.secret, message.endpoint_id, sealed))
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
      { resolver: webhookResolverOf(ctx), allowPrivate: ctx.config.webhookAllowPrivate, timeoutMs },
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

/**
 * Makes one attempt of a claimed message and records it with the message's next state and the endpoint's failure
 * streak, in one transaction; an endpoint that has failed for WEBHOOK_DISABLE_AFTER_HOURS is disabled there, with
 * the `webhook.disabled` event and a system email to each owner of the project. The HTTP call holds no transaction
 * open.
 */
export async function deliverMessage(ctx: AppContext, message: ClaimedMessage): Promise<void> {
  const started = performance.now()
  const at = new Date()
  const answer = await post(ctx, message)
  const latencyMs = Math.round(performance.now() - started)
  const disabled = await ctx.db.transaction(async (tx) => {
    await recordAttempt(tx, {
      messageId: message.id,
      endpointId: message.endpoint_id,
      at,
      ...answer,
      latencyMs,
      retryAt: answer.succeeded ? null : retryAt(ctx, message.attempts + 1, new Date()),
    })
    const endpoint = await updateFailureStreak(
      tx,
      message.endpoint_id,
      answer.succeeded,
      at,
      ctx.config.webhooks.disableAfterMs,
    )
    if (endpoint) {
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
    return endpoint
  })
  if (disabled) {
    ctx.log.warn({ webhookId: disabled.id, projectId: disabled.project_id }, 'webhook endpoint disabled after failing')
    wakeEventDispatcher(ctx.pool)
    wakeSystemMail(ctx)
  }
}
