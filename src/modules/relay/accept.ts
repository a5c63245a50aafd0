import { randomUUID } from 'node:crypto'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { domainOf, normalizeEmail } from '../../mail/address.js'
import { SmtpRefusal, type Submission } from '../../mail/submission/handler.js'
import { wakeOutbox } from '../delivery/service.js'
import type { IdempotencyClaim } from '../idempotency/service.js'
import { groupCommitMaxBytes, relayStoreOf } from './batch.js'
import { readSubmittedMessage } from './message-headers.js'
import { overBillingCap } from './recipient.js'
import { assertSenderDomain } from './sender.js'
import { findEmailsOfKey } from './sql.js'
import { type SubmissionToStore, storeSubmissions } from './store.js'

/** How an SMTP submission names itself in `idempotency_keys`, beside the API's `POST /v1/send`. */
const idempotencyMethod = 'SMTP'

/** The envelope recipients once each (an address given twice, in any case, gets one email), in order. */
function distinctRecipients(recipients: readonly string[]): string[] {
  const seen = new Map<string, string>()
  for (const recipient of recipients) {
    if (!seen.has(normalizeEmail(recipient))) seen.set(normalizeEmail(recipient), recipient)
  }
  return [...seen.values()]
}

/**
 * Stores the submission: through the group commit when it may share a transaction, alone when it claims an
 * Idempotency-Key (a conflict must fail it alone) or is large.
 */
async function store(ctx: AppContext, item: SubmissionToStore, openTransactions: number): Promise<string[]> {
  if (item.claim || item.message.raw.length > groupCommitMaxBytes) {
    const [emailIds = []] = await storeSubmissions(ctx, [item])
    wakeOutbox(ctx.pool)
    return emailIds
  }
  return relayStoreOf(ctx)(item, openTransactions)
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
 * resubmission with an Idempotency-Key already taken by a submission stores nothing and answers with the ids of
 * the emails the first one made (an address it did not have: '').
 */
export async function acceptSubmission(ctx: AppContext, submission: Submission): Promise<{ emailIds: string[] }> {
  // The server never gets this far without a recipient; storing a message for nobody would be a silent loss.
  if (submission.recipients.length === 0) throw new SmtpRefusal(554, '5.5.1 No valid recipients')
  const id = randomUUID()
  const message = readSubmittedMessage(submission.raw, id, new Date())
  if (domainOf(message.from.email) !== domainOf(submission.mailFrom)) {
    await assertSenderDomain(ctx, submission.projectId, message.from.email)
  }
  const recipients = distinctRecipients(submission.recipients)
  const { projectId, mailFrom } = submission
  const claim: IdempotencyClaim | undefined = message.idempotencyKey
    ? { key: message.idempotencyKey, method: idempotencyMethod, path: 'DATA', ttlHours: ctx.config.idempotencyTtlHours }
    : undefined
  let emailIds: string[]
  try {
    emailIds = await store(
      ctx,
      { id, projectId, mailFrom, message, recipients, ...(claim && { claim }) },
      submission.openTransactions ?? 1,
    )
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    if (err.code === 'BILLING_LIMIT_EXCEEDED') throw overBillingCap(err)
    if (err.code === 'IDEMPOTENCY_KEY_REUSED') {
      if (claimedBySubmission(err) && claim) {
        const original = await findEmailsOfKey(ctx.db, projectId, claim.key)
        return { emailIds: submission.recipients.map((recipient) => original.get(normalizeEmail(recipient)) ?? '') }
      }
      throw new SmtpRefusal(550, '5.6.0 This Idempotency-Key was already used by another request (POST /v1/send)')
    }
    throw err
  }
  ctx.metrics.emails.accepted(emailIds.length)
  const byAddress = new Map(recipients.map((recipient, index) => [normalizeEmail(recipient), emailIds[index] ?? '']))
  return { emailIds: submission.recipients.map((recipient) => byAddress.get(normalizeEmail(recipient)) ?? '') }
}
