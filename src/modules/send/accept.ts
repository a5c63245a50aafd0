import type { AppContext } from '../../context.js'
import type { Transaction } from '../../db/client.js'
import { withNamedStatements } from '../../db/named-statement.js'
import { normalizeEmail } from '../../mail/address.js'
import { addUsage, limitExceeded } from '../billing/usage.js'
import { type ContactUpsertResult, upsertContact, upsertContacts } from '../contacts/service.js'
import { enqueueEmails } from '../delivery/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import { composeEmail, type RecipientEmail } from './compose.js'
import { insertCountingInto } from './counted-insert.js'

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
    // Named (one text per shape of the statement): PostgreSQL plans it once per connection, not per group commit.
    return upsertContacts(
      withNamedStatements(tx),
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

/**
 * Stores the rendered emails in the outbox, one insert per project, and returns their ids in input order. Each
 * insert also counts its emails toward the monthly transactional cap of a project without one; the projects with
 * a cap are added to `capped`.
 */
async function enqueueInOrder(
  tx: Transaction,
  recipients: readonly RecipientEmail[],
  emails: Awaited<ReturnType<typeof composeEmail>>[],
  capped: Set<string>,
): Promise<string[]> {
  const emailIds: string[] = []
  const insert = insertCountingInto(capped)
  for (const projectId of new Set(recipients.map((item) => item.projectId))) {
    const indexes = recipients.flatMap((item, index) => (item.projectId === projectId ? [index] : []))
    const ids = await enqueueEmails(
      tx,
      projectId,
      indexes.map((index) => emails[index]).filter((email) => email !== undefined),
      insert,
    )
    indexes.forEach((index, position) => {
      emailIds[index] = ids[position] ?? ''
    })
  }
  return emailIds
}

/**
 * Counts the emails of the projects with a monthly transactional cap (the outbox insert counted the others): one
 * statement for the whole batch, last in the transaction so the usage rows it locks are held only until the
 * commit. A project over its cap fails the transaction, so nothing of it is queued (a group commit then retries
 * its requests one by one, and only the over-cap ones fail).
 */
async function chargeCapped(
  tx: Transaction,
  recipients: readonly RecipientEmail[],
  capped: ReadonlySet<string>,
): Promise<void> {
  if (capped.size === 0) return
  const counts = new Map<string, number>()
  for (const { projectId } of recipients) {
    if (capped.has(projectId)) counts.set(projectId, (counts.get(projectId) ?? 0) + 1)
  }
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
    const capped = new Set<string>()
    const emailIds = await enqueueInOrder(tx, recipients, emails, capped)
    await chargeCapped(tx, recipients, capped)
    return upserted.map(({ contact }, index) => ({
      contact: { id: contact.id, email: contact.email },
      email: emailIds[index] ?? '',
    }))
  })
}
