import { z } from 'zod'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { wakeEventDispatcher } from '../../events/wake.js'
import type { Logger } from '../../logger.js'
import { type SnsMessage, type SnsTrust, snsMessage, verifySnsSignature } from '../../mail/aws/sns.js'
import { feedbackReceiptRetentionMs } from '../feedback/receipts.js'
import { handleSesInboundNotification } from '../inbound/service.js'
import { applySesFeedback, type FeedbackOutcome } from './ses.js'

export type ProviderOutcome = FeedbackOutcome | 'confirmed' | 'inbound'

const forbidden = (message: string) => new AppError('FORBIDDEN', message)

// How far SNS's clock (and the database's, which stamps receipts) may be from ours.
const snsClockSkewMs = 5 * 60_000

/**
 * Refuses a message SNS published before the oldest receipts still kept (a captured notification replayed
 * once its receipt expired would apply again), or further ahead than the clock skew allows. The skew comes
 * off the retention as well, so a message stamped a little ahead of our clock cannot outlive its receipt.
 */
function checkSnsMessageAge(message: SnsMessage, log: Logger, now = Date.now()): void {
  const publishedAt = Date.parse(message.Timestamp)
  let problem: string | undefined
  if (Number.isNaN(publishedAt)) problem = 'SNS message Timestamp is not a valid time'
  else if (publishedAt > now + snsClockSkewMs) problem = 'SNS message Timestamp is in the future'
  else if (publishedAt < now - (feedbackReceiptRetentionMs - snsClockSkewMs)) {
    problem = 'SNS message is too old to be accepted'
  }
  if (!problem) return
  // Signed by SNS, so either a replay or a clock to fix: worth an operator's look.
  log.warn({ notificationId: message.MessageId, timestamp: message.Timestamp }, problem)
  throw forbidden(problem)
}

/**
 * `POST /webhooks/email-provider`: an Amazon SNS message. Anything not signed by a certificate `trust` accepts
 * (or from a topic outside `SNS_TOPIC_ARNS`, when set), or published outside the window its receipt is kept,
 * is refused with 403 and changes nothing.
 */
export async function receiveProviderMessage(
  ctx: AppContext,
  trust: SnsTrust,
  body: unknown,
): Promise<ProviderOutcome> {
  const parsed = snsMessage.safeParse(body)
  if (!parsed.success) throw forbidden('Not a signed Amazon SNS message')
  const message = parsed.data
  const topics = ctx.config.snsTopicArns
  if (topics.length > 0 && !topics.includes(message.TopicArn)) {
    throw forbidden('Messages from this SNS topic are not accepted')
  }
  if (!(await verifySnsSignature(message, trust))) throw forbidden('Invalid SNS signature')
  checkSnsMessageAge(message, ctx.log)

  switch (message.Type) {
    case 'SubscriptionConfirmation':
      await confirmSubscription(trust, message, ctx.log)
      return 'confirmed'
    case 'UnsubscribeConfirmation':
      ctx.log.warn({ topicArn: message.TopicArn }, 'SNS subscription ended')
      return 'ignored'
    case 'Notification': {
      if (isInboundMail(message.Message)) {
        const received = await handleSesInboundNotification(ctx, message.Message)
        if (received.kind === 'ignored') {
          ctx.log.warn({ notificationId: message.MessageId, reason: received.reason }, 'SES inbound mail ignored')
        }
        return 'inbound'
      }
      const outcome = await applySesFeedback(ctx.db, ctx.log, message.MessageId, message.Message)
      // Its `email.*` event may answer a workflow's WAIT_FOR_EVENT: handed out now rather than at a poll.
      if (outcome === 'applied') wakeEventDispatcher(ctx.pool)
      return outcome
    }
  }
}

const inboundHead = z.object({ notificationType: z.literal('Received') })

function isInboundMail(message: string): boolean {
  try {
    return inboundHead.safeParse(JSON.parse(message)).success
  } catch {
    return false
  }
}

/** Confirms by fetching `SubscribeURL`, only on a host `trust` accepts (anything else would be SSRF). */
async function confirmSubscription(trust: SnsTrust, message: SnsMessage, log: Logger): Promise<void> {
  let url: URL | undefined
  try {
    url = message.SubscribeURL ? new URL(message.SubscribeURL) : undefined
  } catch {
    url = undefined
  }
  if (!url || !trust.isTrustedSubscribeUrl(url)) {
    throw new AppError('BAD_REQUEST', 'SubscribeURL must be an https URL on an Amazon SNS host')
  }
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(10_000) }).catch(
    (err: unknown) => {
      log.error({ err, topicArn: message.TopicArn }, 'confirming the SNS subscription failed')
      return undefined
    },
  )
  await response?.body?.cancel()
  if (!response?.ok) {
    // 503 makes SNS send the confirmation again, so a passing outage does not lose the subscription.
    throw new AppError('SERVICE_UNAVAILABLE', 'Could not confirm the SNS subscription; try again')
  }
  log.info({ topicArn: message.TopicArn }, 'SNS subscription confirmed')
}
