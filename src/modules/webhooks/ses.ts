import type { Database } from '../../db/client.js'
import type { Logger } from '../../logger.js'
import type { SesFeedback } from '../../mail/ses-notifications.js'
import { claimFeedbackReceipt } from '../feedback/receipts.js'
import { failRejectedEmail } from '../feedback/reject.js'
import { applyEmailFeedback, type EmailFeedback } from '../feedback/service.js'

export type FeedbackOutcome = 'applied' | 'duplicate' | 'unknown_email' | 'ignored'

type Actionable = Exclude<SesFeedback, { kind: 'ignored' | 'send' | 'delivery_delay' }>

function emailFeedbackOf(feedback: Exclude<Actionable, { kind: 'reject' }>): EmailFeedback {
  const at = feedback.occurredAt
  switch (feedback.kind) {
    case 'delivery':
    case 'open':
    case 'complaint':
      return { kind: feedback.kind, at }
    case 'click':
      return { kind: 'click', at, link: feedback.link }
    case 'bounce':
      return { kind: 'bounce', at, bounceType: feedback.bounceType }
  }
}

/**
 * Applies one SES report, delivered as the SNS notification `notificationId`, in one transaction with the
 * receipt of that id: a notification SNS delivers again changes nothing. Send events add nothing to what the
 * outbox recorded, and a delivery delay changes no status (SES keeps trying; a bounce or delivery follows).
 */
export async function applySesFeedback(
  db: Database,
  log: Logger,
  notificationId: string,
  feedback: SesFeedback,
): Promise<FeedbackOutcome> {
  if (feedback.kind === 'ignored') {
    log.info({ notificationId, reason: feedback.reason }, 'SES notification ignored')
    return 'ignored'
  }
  if (feedback.kind === 'send') return 'ignored'
  if (feedback.kind === 'delivery_delay') {
    log.info(
      { notificationId, providerMessageId: feedback.providerMessageId, delayType: feedback.delayType },
      'SES delivery delayed',
    )
    return 'ignored'
  }
  const outcome = await db.transaction(async (tx): Promise<FeedbackOutcome> => {
    if (!(await claimFeedbackReceipt(tx, `sns:${notificationId}`))) return 'duplicate'
    const { providerMessageId } = feedback
    const found =
      feedback.kind === 'reject'
        ? await failRejectedEmail(
            tx,
            providerMessageId,
            `rejected by the provider: ${feedback.diagnostic ?? 'no reason given'}`,
          )
        : (await applyEmailFeedback(tx, { providerMessageId }, emailFeedbackOf(feedback))) !== undefined
    return found ? 'applied' : 'unknown_email'
  })
  if (outcome === 'unknown_email') {
    // Answered with 200 all the same: SNS would retry a report that can never match.
    log.warn(
      { notificationId, providerMessageId: feedback.providerMessageId, kind: feedback.kind },
      'SES report for an unknown email',
    )
  }
  return outcome
}
