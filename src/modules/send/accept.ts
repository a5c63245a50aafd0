import type { AppContext } from '../../context.js'
import type { Transaction } from '../../db/client.js'
import { type ContactUpsertResult, upsertContact, upsertContacts } from '../contacts/service.js'
import { enqueueEmails } from '../delivery/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import { normalizeEmail } from '../users/service.js'
import { composeEmail, type RecipientEmail } from './compose.js'

export type AcceptedEmail = { contact: { id: string; email: string }; email: string }

/**
 * The recipients' contacts, in order: one multi-row upsert when it can (distinct addresses, no explicit
 * `subscribed`, which only the single upsert may flip), otherwise one upsert per recipient.
 */
async function upsertRecipients(
  tx: Transaction,
  projectId: string,
  recipients: readonly RecipientEmail[],
): Promise<Pick<ContactUpsertResult, 'contact' | 'requestData'>[]> {
  const emails = new Set(recipients.map((item) => normalizeEmail(item.recipient.email)))
  const explicit = recipients.some((item) => item.body.subscribed !== undefined)
  if (recipients.length > 1 && emails.size === recipients.length && !explicit) {
    return upsertContacts(
      tx,
      recipients.map((item) => ({
        projectId,
        email: item.recipient.email,
        data: item.body.data,
        subscribedIfNew: false,
      })),
    )
  }
  const results = []
  for (const item of recipients) {
    results.push(
      await upsertContact(
        tx,
        projectId,
        { email: item.recipient.email, subscribed: item.body.subscribed, data: item.body.data },
        { subscribedIfNew: false },
      ),
    )
  }
  return results
}

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
    const upserted = await upsertRecipients(tx, projectId, recipients)
    const emails = await Promise.all(
      recipients.map((item, index) => {
        const result = upserted[index]
        if (!result) throw new Error('send lost a recipient contact')
        return composeEmail(ctx, item, result.contact, result.requestData)
      }),
    )
    const emailIds = await enqueueEmails(tx, projectId, emails)
    return upserted.map(({ contact }, index) => ({
      contact: { id: contact.id, email: contact.email },
      email: emailIds[index] ?? '',
    }))
  })
}
