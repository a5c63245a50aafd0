import { inArray } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import { emails } from '../../db/schema/index.js'
import { domainOf } from '../../mail/address.js'
import type { ComplaintReport } from '../../mail/inbound/complaint-report.js'
import type { InboundMessage } from '../../mail/inbound/message.js'
import { complaintMailbox, emailOfComplaintFeedbackId } from '../../mail/outbound/feedback-headers.js'
import { applyEmailFeedback } from '../feedback/service.js'

/** A mailbox provider reports one message at a time; a report naming more is not one to act on in full. */
const maxReportedEmails = 100

/** The complaint mailboxes a report reached (no `email.received` for them) and the emails it marked. */
export type TakenReport = { mailboxes: Set<string>; complaints: number }

const nothingTaken: TakenReport = { mailboxes: new Set(), complaints: 0 }

function isComplaintMailbox(address: string): boolean {
  return address.slice(0, address.lastIndexOf('@')).toLowerCase() === complaintMailbox
}

/**
 * RFC 9477: an ARF report sent to `fbl@` a sending domain about an email sent from that domain is a complaint
 * about that email, handled as an SES complaint is (COMPLAINED, `email.complaint`, the address suppressed, the
 * contact unsubscribed). It is taken only from a DKIM-signed, DMARC-authenticated report (RFC 9477 §3.2) that
 * names the email by the `CFBL-Feedback-ID` we signed. Anything else (an unsigned report, an id we did not sign,
 * an email of another domain) is left to be ordinary inbound mail, so nothing sent to the mailbox is lost.
 */
export async function takeComplaintReport(
  ctx: AppContext,
  message: InboundMessage,
  report: ComplaintReport | undefined,
): Promise<TakenReport> {
  if (!report || message.dkimVerdict !== 'PASS' || message.dmarcVerdict !== 'PASS') return nothingTaken
  const mailboxes = message.recipients.filter(isComplaintMailbox)
  const ids = new Set<string>()
  for (const value of report.feedbackIds) {
    const emailId = emailOfComplaintFeedbackId(ctx.config.secret, value)
    if (emailId) ids.add(emailId)
  }
  if (mailboxes.length === 0 || ids.size === 0) return nothingTaken

  const reported = await ctx.db
    .select({ id: emails.id, fromEmail: emails.fromEmail })
    .from(emails)
    .where(inArray(emails.id, [...ids].slice(0, maxReportedEmails)))
  const mailboxDomains = new Set(mailboxes.map(domainOf))
  // The report must reach the complaint mailbox the email named: a recipient of one project's mail cannot
  // turn a copy of its headers into a complaint at another project's domain.
  const complained = reported.filter((email) => mailboxDomains.has(domainOf(email.fromEmail)))
  if (complained.length === 0) return nothingTaken

  const evidence = { source: 'report' as const, feedbackType: report.feedbackType, userAgent: report.userAgent }
  const at = new Date()
  await ctx.db.transaction(async (tx) => {
    for (const email of complained) {
      await applyEmailFeedback(tx, { emailId: email.id }, { kind: 'complaint', at, evidence })
    }
  })
  const domains = new Set(complained.map((email) => domainOf(email.fromEmail)))
  return {
    mailboxes: new Set(mailboxes.filter((mailbox) => domains.has(domainOf(mailbox)))),
    complaints: complained.length,
  }
}
