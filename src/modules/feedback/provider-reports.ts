import type { Transaction } from '../../db/client.js'
import type { SesFeedback } from '../../mail/aws/ses-notifications.js'
import { classifyHitRequest } from './machine-hits.js'
import { failRejectedEmail } from './reject.js'
import { applyEmailFeedback, type EmailFeedback } from './service.js'

/** SES reports that change no email: they are only logged. */
const loggedOnlyKinds = ['ignored', 'send', 'delivery_delay'] as const

/** The SES reports that change an email. */
export type ActionableSesFeedback = Exclude<SesFeedback, { kind: (typeof loggedOnlyKinds)[number] }>

export function isActionable(feedback: SesFeedback): feedback is ActionableSesFeedback {
  return !(loggedOnlyKinds as readonly string[]).includes(feedback.kind)
}

function emailFeedbackOf(feedback: Exclude<ActionableSesFeedback, { kind: 'reject' }>): EmailFeedback {
  const at = feedback.occurredAt
  const source = 'provider' as const
  switch (feedback.kind) {
    case 'delivery':
      return { kind: 'delivery', at, evidence: { source, diagnostic: feedback.diagnostic } }
    case 'complaint':
      return {
        kind: 'complaint',
        at,
        evidence: { source, complaintFeedbackType: feedback.complaintFeedbackType, userAgent: feedback.userAgent },
      }
    // SES's own open and click tracking reports the client it saw, classified as our tracking routes do.
    case 'open':
      return {
        kind: 'open',
        at,
        source,
        userAgent: feedback.userAgent,
        client: classifyHitRequest('open', { method: 'GET', ...clientOf(feedback) }),
      }
    case 'click':
      return {
        kind: 'click',
        at,
        link: feedback.link,
        source,
        userAgent: feedback.userAgent,
        client: classifyHitRequest('click', { method: 'GET', ...clientOf(feedback) }),
      }
    case 'bounce':
      return {
        kind: 'bounce',
        at,
        bounceType: feedback.bounceType,
        evidence: { source, bounceSubType: feedback.bounceSubType, diagnostic: feedback.diagnostic },
      }
  }
}

function clientOf(feedback: { userAgent?: string; ipAddress?: string }) {
  return { userAgent: feedback.userAgent, ip: feedback.ipAddress }
}

/**
 * Applies one SES report to the email SES knows by its message id, inside the caller's transaction: a reject
 * fails the email, anything else goes through `applyEmailFeedback`. False when no email has that id (yet).
 * Both a report that matched at once and one held until its id landed (pending-reports.ts) come through here.
 */
export async function applySesReport(tx: Transaction, feedback: ActionableSesFeedback): Promise<boolean> {
  const { providerMessageId } = feedback
  if (feedback.kind === 'reject') {
    const reason = `rejected by the provider: ${feedback.diagnostic ?? 'no reason given'}`
    return failRejectedEmail(tx, providerMessageId, reason)
  }
  return (await applyEmailFeedback(tx, { providerMessageId }, emailFeedbackOf(feedback))) !== undefined
}
