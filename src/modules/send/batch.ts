import type { AppContext } from '../../context.js'
import { batcherPer, type Outcome, settleEach } from '../../db/batcher.js'
import { upsertContacts } from '../contacts/service.js'
import { enqueueEmails, wakeOutbox } from '../delivery/service.js'
import { normalizeEmail } from '../users/service.js'
import { type AcceptedEmail, acceptEmails } from './accept.js'
import { composeEmail, type RecipientEmail } from './compose.js'

/**
 * Group commit of one-recipient sends: concurrent requests share one transaction (one multi-row contact
 * upsert, one outbox insert per project) and each answers after that commit. Any failure rolls the batch
 * back and retries its requests one by one on the single path, so only the failing request fails.
 */
async function acceptMany(ctx: AppContext, items: RecipientEmail[]): Promise<Outcome<AcceptedEmail>[]> {
  try {
    const accepted = await ctx.db.transaction(async (tx) => {
      const upserted = await upsertContacts(
        tx,
        items.map((item) => ({
          projectId: item.projectId,
          email: item.recipient.email,
          data: item.body.data,
          subscribedIfNew: false,
        })),
      )
      const emails = await Promise.all(
        items.map((item, index) => {
          const result = upserted[index]
          if (!result) throw new Error('batched send lost a contact')
          return composeEmail(ctx, item, result.contact, result.requestData)
        }),
      )
      const emailIds: string[] = []
      for (const projectId of new Set(items.map((item) => item.projectId))) {
        const indexes = items.flatMap((item, index) => (item.projectId === projectId ? [index] : []))
        const ids = await enqueueEmails(
          tx,
          projectId,
          indexes.map((index) => emails[index]).filter((email) => email !== undefined),
        )
        indexes.forEach((index, position) => {
          emailIds[index] = ids[position] ?? ''
        })
      }
      return upserted.map(({ contact }, index) => ({
        contact: { id: contact.id, email: contact.email },
        email: emailIds[index] ?? '',
      }))
    })
    return accepted.map((value) => ({ ok: true as const, value }))
  } catch {
    return settleEach(items, async (item) => {
      const [accepted] = await acceptEmails(ctx, item.projectId, [item], undefined)
      if (!accepted) throw new Error('send accepted no email')
      return accepted
    })
  } finally {
    wakeOutbox(ctx.pool)
  }
}

/** The group commit of this context; requests to one contact never share a batch. */
export const sendBatcherOf = batcherPer((ctx: AppContext) => ({
  maxSize: 128,
  maxInFlight: 3,
  run: (items: RecipientEmail[]) => acceptMany(ctx, items),
  keyOf: (item: RecipientEmail) => `${item.projectId} ${normalizeEmail(item.recipient.email)}`,
}))
