import { domainOf } from '../address.js'
import { signPayload, verifyPayload } from '../signed-links.js'

/**
 * Gmail's SenderId, the right-most field of `Feedback-ID`: 5–15 characters, the same across the mail stream.
 * Its feedback loop reports complaint rates per field, for the domain that DKIM-signed the header.
 */
const senderId = 'mailroom'

/** The local part of the complaint address (RFC 9477) at each sending domain. */
export const complaintMailbox = 'fbl'

/** What an email is, for the receivers' feedback loops. */
export type FeedbackSource = {
  emailId: string
  projectId: string
  sourceType: 'TRANSACTIONAL' | 'WORKFLOW' | 'CAMPAIGN'
  campaignId: string | null
  workflowId: string | null
  templateId: string | null
  fromEmail: string
  /** Mail to a list (campaigns, marketing templates and workflow steps): the kind recipients report as spam. */
  bulk: boolean
}

/** CFBL on: complaint reports sent to a sending domain's `fbl@` reach the inbound receiver, signed with this secret. */
export type ComplaintLoop = { secret: string }

/**
 * `Feedback-ID: stream:source:project:mailroom` (Gmail's `a:b:c:SenderId`): the campaign, workflow or
 * template the email came from (empty for content sent inline), its source type and its project, so a
 * complaint rate can be traced to the stream that caused it. None of the fields names a recipient.
 */
function feedbackId(source: FeedbackSource): string {
  const stream = source.campaignId ?? source.workflowId ?? source.templateId ?? ''
  return `${stream}:${source.sourceType.toLowerCase()}:${source.projectId}:${senderId}`
}

/**
 * The headers receivers' feedback loops read, to be covered by the DKIM signature: `Feedback-ID` on every
 * email, and on bulk mail signed for its From domain the RFC 9477 pair, when complaint reports can reach us.
 * The complaint address is at the From domain because RFC 9477 wants it aligned with a DKIM signature on the
 * message, and ours is the From domain's.
 */
export function feedbackHeaders(
  source: FeedbackSource,
  loop: ComplaintLoop | undefined,
  signed: boolean,
): Record<string, string> {
  const headers: Record<string, string> = { 'Feedback-ID': feedbackId(source) }
  if (loop && signed && source.bulk) {
    headers['CFBL-Address'] = `${complaintMailbox}@${domainOf(source.fromEmail)}; report=arf`
    headers['CFBL-Feedback-ID'] = complaintFeedbackId(loop.secret, source.emailId)
  }
  return headers
}

/**
 * The email id and a MAC (RFC 9477 §6 recommends a hard-to-forge id), 45 characters. The MAC's `.` is written
 * as `:`, which the header's grammar allows (`1*(atext / ":")`) where it does not allow a dot.
 */
export function complaintFeedbackId(secret: string, emailId: string): string {
  return signPayload(secret, 'complaint-feedback', Buffer.from(emailId.replaceAll('-', ''), 'hex')).replace('.', ':')
}

/**
 * The email a `CFBL-Feedback-ID` names, or undefined for one we did not sign. Whitespace is dropped: the id has
 * none, and a report may carry the header folded over lines.
 */
export function emailOfComplaintFeedbackId(secret: string, value: string): string | undefined {
  const bytes = verifyPayload(secret, 'complaint-feedback', value.replace(/\s+/g, '').replace(':', '.'))
  if (bytes?.length !== 16) return undefined
  const hex = bytes.toString('hex')
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-')
}
