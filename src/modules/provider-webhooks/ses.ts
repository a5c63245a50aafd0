import type { Database } from '../../db/client.js'
import type { Logger } from '../../logger.js'
import { parseSesNotification } from '../../mail/aws/ses-notifications.js'
import { messageJson } from '../../mail/aws/sns.js'
import { holdProviderReport } from '../feedback/pending-reports.js'
import { applySesReport } from '../feedback/provider-reports.js'
import { claimFeedbackReceipt } from '../feedback/receipts.js'

export type FeedbackOutcome = 'applied' | 'duplicate' | 'pending' | 'ignored'

/**
 * Applies one SES report, the `Message` of the SNS notification `notificationId`, in one transaction with the
 * receipt of that id: a notification SNS delivers again changes nothing. Send events add nothing to what the
 * outbox recorded, and a delivery delay changes no status (SES keeps trying; a bounce or delivery follows).
 * A report for an email whose SES id is not recorded yet is held and applied when it is (`pending`).
 */
export async function applySesFeedback(
  db: Database,
  log: Logger,
  notificationId: string,
  message: unknown,
): Promise<FeedbackOutcome> {
  const feedback = parseSesNotification(message)
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
  const { providerMessageId } = feedback
  const outcome = await db.transaction(async (tx): Promise<FeedbackOutcome> => {
    if (!(await claimFeedbackReceipt(tx, `sns:${notificationId}`))) return 'duplicate'
    if (await applySesReport(tx, feedback)) return 'applied'
    await holdProviderReport(tx, { provider: 'ses', providerMessageId, payload: messageJson(message) })
    return 'pending'
  })
  if (outcome === 'pending') {
    // Answered with 200: SNS's few retries would not outlast a slow id, and the report is kept durably.
    log.info({ notificationId, providerMessageId, kind: feedback.kind }, 'SES report held until its email is known')
  }
  return outcome
}
