import type { AppContext } from '../../context.js'
import { batcherPer, type Outcome, settleEach } from '../../db/batcher.js'
import { normalizeEmail } from '../../mail/address.js'
import { wakeOutbox } from '../delivery/service.js'
import { type AcceptedEmail, acceptEmails } from './accept.js'
import type { RecipientEmail } from './compose.js'

/**
 * Group commit of one-recipient sends: concurrent requests share one transaction (one multi-row contact
 * upsert, one outbox insert per project) and each answers after that commit. Any failure rolls the batch
 * back and retries its requests one by one, so only the failing request fails.
 */
async function acceptMany(ctx: AppContext, items: RecipientEmail[]): Promise<Outcome<AcceptedEmail>[]> {
  try {
    const accepted = await acceptEmails(ctx, items)
    return accepted.map((value) => ({ ok: true as const, value }))
  } catch {
    return settleEach(items, async (item) => {
      const [accepted] = await acceptEmails(ctx, [item])
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
