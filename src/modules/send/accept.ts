import type { AppContext } from '../../context.js'
import { upsertContact } from '../contacts/service.js'
import { enqueueEmails, type NewEmail } from '../delivery/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import { composeEmail, type RecipientEmail } from './compose.js'

export type AcceptedEmail = { contact: { id: string; email: string }; email: string }

/**
 * The single-request path of `POST /v1/send`: every recipient gets its own contact upsert and its own rendered
 * email, in order, and the emails are stored in the outbox in the same transaction, so a 200 means they will
 * be sent. The caller wakes the outbox after it returns.
 */
export async function acceptEmails(
  ctx: AppContext,
  projectId: string,
  recipients: readonly RecipientEmail[],
  claim: IdempotencyClaim | undefined,
): Promise<AcceptedEmail[]> {
  return ctx.db.transaction(async (tx) => {
    if (claim) await claimIdempotencyKey(tx, projectId, claim)
    const contacts: { id: string; email: string }[] = []
    const emails: NewEmail[] = []
    for (const item of recipients) {
      const { contact, requestData } = await upsertContact(
        tx,
        projectId,
        { email: item.recipient.email, subscribed: item.body.subscribed, data: item.body.data },
        { subscribedIfNew: false },
      )
      contacts.push({ id: contact.id, email: contact.email })
      emails.push(await composeEmail(ctx, item, contact, requestData))
    }
    const emailIds = await enqueueEmails(tx, projectId, emails)
    return contacts.map((contact, index) => ({ contact, email: emailIds[index] ?? '' }))
  })
}
