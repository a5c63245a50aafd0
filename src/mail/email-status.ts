import type { SesBounceType, SesFeedback } from './aws/ses-notifications.js'

export const emailStatuses = [
  'QUEUED',
  'SENDING',
  'SENT',
  'FAILED',
  'DELIVERED',
  'OPENED',
  'CLICKED',
  'BOUNCED',
  'COMPLAINED',
] as const

export type EmailStatus = (typeof emailStatuses)[number]

/**
 * Feedback arrives out of order (SNS retries, a late Delivery after a Complaint, an open pixel loaded
 * before the Delivery event), so an email's status only ever moves up this ranking:
 *
 * - QUEUED < SENDING < SENT < DELIVERED < OPENED < CLICKED: the normal life of an email.
 * - FAILED (the transport or SES refused it) sits above SENT but below DELIVERED: a failure beats "we handed
 *   it over", but any sign of delivery proves the failure report wrong (an SMTP timeout after the
 *   recipient's server had already taken the message).
 * - BOUNCED beats every delivery state: a permanent bounce after a Delivery event is the later, more
 *   specific truth (asynchronous bounces), and opens or clicks after it are usually scanners.
 * - COMPLAINED beats everything: once a recipient marked it as spam, no late delivery, open or bounce
 *   report may hide that.
 *
 * A transient bounce and a delivery delay are not statuses at all: the email may still be delivered.
 */
const statusPrecedence: Readonly<Record<EmailStatus, number>> = Object.freeze(
  Object.fromEntries(emailStatuses.map((status, rank) => [status, rank])) as Record<EmailStatus, number>,
)

/** The status to store when `incoming` is reported for an email whose status is `current`. */
export function nextEmailStatus(current: EmailStatus, incoming: EmailStatus | undefined): EmailStatus {
  if (incoming === undefined) return current
  return statusPrecedence[incoming] > statusPrecedence[current] ? incoming : current
}

/** What decides the status a report gives: an SES event, or one of our own reports (tracking, SMTP replies). */
export type StatusReport = { kind: SesFeedback['kind']; bounceType?: SesBounceType }

/** The status a report gives, or undefined when it gives none (transient bounce, delay, ignored). */
export function statusOfFeedback(feedback: StatusReport): EmailStatus | undefined {
  switch (feedback.kind) {
    case 'send':
      return 'SENT'
    case 'delivery':
      return 'DELIVERED'
    case 'open':
      return 'OPENED'
    case 'click':
      return 'CLICKED'
    case 'bounce':
      return feedback.bounceType === 'Permanent' ? 'BOUNCED' : undefined
    case 'complaint':
      return 'COMPLAINED'
    case 'reject':
      return 'FAILED'
    case 'delivery_delay':
    case 'ignored':
      return undefined
  }
}
