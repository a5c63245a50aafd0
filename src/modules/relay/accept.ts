import { randomUUID } from 'node:crypto'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { domainOf, normalizeEmail } from '../../mail/address.js'
import { SmtpRefusal, type Submission } from '../../mail/submission/handler.js'
import { chargeUsage } from '../billing/usage.js'
import { upsertContacts } from '../contacts/service.js'
import { enqueueEmails, type NewEmail, wakeOutbox } from '../delivery/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import { readSubmittedMessage, type SubmittedMessage } from './message-headers.js'
import { overBillingCap } from './recipient.js'
import { assertSenderDomain } from './sender.js'
import { insertSubmittedMessage } from './sql.js'

/** How an SMTP submission names itself in `idempotency_keys`, beside the API's `POST /v1/send`. */
const idempotencyMethod = 'SMTP'

/** The envelope recipients once each (an address given twice, in any case, gets one email), in order. */
function distinctRecipients(recipients: readonly string[]): string[] {
  const seen = new Map<string, string>()
  for (const recipient of recipients)
    if (!seen.has(normalizeEmail(recipient))) seen.set(normalizeEmail(recipient), recipient)
  return [...seen.values()]
}

/**
 * The one transaction of an accepted submission: the Idempotency-Key's claim, each recipient upserted as a contact
 * (a new one unsubscribed, an existing one unchanged, as /v1/send does), the message stored once, one email per
 * recipient pointing to it, and the monthly transactional usage charged last (over the cap, nothing is stored).
 */
async function storeSubmission(
  ctx: AppContext,
  submission: Submission,
  id: string,
  message: SubmittedMessage,
  recipients: readonly string[],
): Promise<string[]> {
  const { projectId } = submission
  const claim: IdempotencyClaim | undefined = message.idempotencyKey
    ? { key: message.idempotencyKey, method: idempotencyMethod, path: 'DATA', ttlHours: ctx.config.idempotencyTtlHours }
    : undefined
  return ctx.db.transaction(async (tx) => {
    if (claim) await claimIdempotencyKey(tx, projectId, claim)
    const contacts = await upsertContacts(
      tx,
      recipients.map((email) => ({ projectId, email, subscribedIfNew: false })),
    )
    await insertSubmittedMessage(tx, { id, projectId, mailFrom: submission.mailFrom, raw: message.raw })
    const emails = recipients.map(
      (recipient, index): NewEmail => ({
        from: message.from,
        to: { email: recipient },
        subject: message.subject,
        // Nothing shows an email's stored HTML, and a relayed one is sent from the stored message: no copy.
        html: '',
        contactId: contacts[index]?.contact.id ?? null,
        sourceType: 'TRANSACTIONAL',
        marketing: false,
        submitted: { messageId: message.messageId, submittedMessageId: id },
      }),
    )
    const emailIds = await enqueueEmails(tx, projectId, emails)
    await chargeUsage(tx, projectId, 'transactional', recipients.length)
    return emailIds
  })
}

/** Whether a refused claim was this relay's own (a resubmission after a lost 250) rather than an API request's. */
function claimedBySubmission(err: AppError): boolean {
  const original = err.options.details?.originalRequest
  return (
    typeof original === 'object' && original !== null && 'method' in original && original.method === idempotencyMethod
  )
}

/**
 * End of DATA: reads the header section, judges the From header's domain when it differs from MAIL FROM's, and
 * stores the message for every accepted recipient before resolving, so the 250 means it is committed. A
 * resubmission with an Idempotency-Key already taken by a submission stores nothing and resolves with no ids.
 */
export async function acceptSubmission(ctx: AppContext, submission: Submission): Promise<{ emailIds: string[] }> {
  const id = randomUUID()
  const message = readSubmittedMessage(submission.raw, id, new Date())
  if (domainOf(message.from.email) !== domainOf(submission.mailFrom)) {
    await assertSenderDomain(ctx, submission.projectId, message.from.email)
  }
  const recipients = distinctRecipients(submission.recipients)
  let emailIds: string[]
  try {
    emailIds = await storeSubmission(ctx, submission, id, message, recipients)
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    if (err.code === 'BILLING_LIMIT_EXCEEDED') throw overBillingCap(err)
    if (err.code === 'IDEMPOTENCY_KEY_REUSED') {
      if (claimedBySubmission(err)) return { emailIds: [] }
      throw new SmtpRefusal(550, '5.6.0 This Idempotency-Key was already used by another request (POST /v1/send)')
    }
    throw err
  }
  ctx.metrics.emails.accepted(emailIds.length)
  wakeOutbox(ctx.pool)
  const byAddress = new Map(recipients.map((recipient, index) => [normalizeEmail(recipient), emailIds[index] ?? '']))
  return { emailIds: submission.recipients.map((recipient) => byAddress.get(normalizeEmail(recipient)) ?? '') }
}
