import type { AppContext } from '../../context.js'
import type { Transaction } from '../../db/client.js'
import { normalizeEmail } from '../../mail/address.js'
import { addUsage, limitExceeded } from '../billing/usage.js'
import { type ContactUpsertResult, upsertContact, upsertContacts } from '../contacts/service.js'
import { enqueueEmails } from '../delivery/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import { composeEmail, type RecipientEmail } from './compose.js'

export type AcceptedEmail = { contact: { id: string; email: string }; email: string }

/** An `Idempotency-Key` to claim in the transaction that stores the emails, for the project that sent it. */
export type ProjectClaim = { projectId: string; claim: IdempotencyClaim }

/**
 * The recipients' contacts, in order: one multi-row upsert when it can (distinct contacts, no explicit
 * `subscribed`, which only the single upsert may flip), otherwise one upsert per recipient.
 */
async function upsertRecipients(
  tx: Transaction,
  recipients: readonly RecipientEmail[],
): Promise<Pick<ContactUpsertResult, 'contact' | 'requestData'>[]> {
  const keys = new Set(recipients.map((item) => `${item.projectId} ${normalizeEmail(item.recipient.email)}`))
  const explicit = recipients.some((item) => item.body.subscribed !== undefined)
  if (keys.size === recipients.length && !explicit) {
    return upsertContacts(
      tx,
      recipients.map((item) => ({
        projectId: item.projectId,
        email: item.recipient.email,
        data: item.body.data,
        subscribedIfNew: false,
      })),
    )
  }
  const results = []
  for (const { projectId, recipient, body } of recipients) {
    results.push(
      await upsertContact(
        tx,
        projectId,
        { email: recipient.email, subscribed: body.subscribed, data: body.data },
        { subscribedIfNew: false },
      ),
    )
  }
  return results
}

/** Stores the rendered emails in the outbox, one insert per project, and returns their ids in input order. */
async function enqueueInOrder(
  tx: Transaction,
  recipients: readonly RecipientEmail[],
  emails: Awaited<ReturnType<typeof composeEmail>>[],
): Promise<string[]> {
  const emailIds: string[] = []
  for (const projectId of new Set(recipients.map((item) => item.projectId))) {
    const indexes = recipients.flatMap((item, index) => (item.projectId === projectId ? [index] : []))
    const ids = await enqueueEmails(
      tx,
      projectId,
      indexes.map((index) => emails[index]).filter((email) => email !== undefined),
    )
    indexes.forEach((index, position) => {
      emailIds[index] = ids[position] ?? ''
    })
  }
  return emailIds
}

/**
 * Counts the emails against each project's monthly transactional cap: one statement for the whole batch, last in
 * the transaction so the usage rows it locks are held only until the commit. A project over its cap fails the
 * transaction, so nothing of it is queued (a group commit then retries its requests one by one, and only the
 * over-cap ones fail).
 */
async function chargeTransactional(tx: Transaction, recipients: readonly RecipientEmail[]): Promise<void> {
  const counts = new Map<string, number>()
  for (const { projectId } of recipients) counts.set(projectId, (counts.get(projectId) ?? 0) + 1)
  const [refused] = await addUsage(tx, 'transactional', counts)
  if (refused) throw await limitExceeded(tx, refused, 'transactional', counts.get(refused) ?? 0)
}

/**
 * The one transaction of `POST /v1/send`, for one request's recipients or a group commit of many requests:
 * each recipient gets its own contact upsert and its own rendered email, in order, and the emails are stored
 * in the outbox in the same transaction, so a 200 means they will be sent. The caller wakes the outbox.
 */
export async function acceptEmails(
  ctx: AppContext,
  recipients: readonly RecipientEmail[],
  idempotency?: ProjectClaim,
): Promise<AcceptedEmail[]> {
  return ctx.db.transaction(async (tx) => {
    if (idempotency) await claimIdempotencyKey(tx, idempotency.projectId, idempotency.claim)
    const upserted = await upsertRecipients(tx, recipients)
    const emails = await Promise.all(
      recipients.map((item, index) => {
        const result = upserted[index]
        if (!result) throw new Error('send lost a recipient contact')
        return composeEmail(ctx, item, result.contact, result.requestData)
      }),
    )
    const emailIds = await enqueueInOrder(tx, recipients, emails)
    await chargeTransactional(tx, recipients)
    return upserted.map(({ contact }, index) => ({
      contact: { id: contact.id, email: contact.email },
      email: emailIds[index] ?? '',
    }))
  })
}
