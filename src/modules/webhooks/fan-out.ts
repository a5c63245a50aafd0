import type { EventSubscriber } from '../../events/bus.js'
import { insertMessagesForEvents } from './sql.js'
import { wakeWebhookDelivery } from './wake.js'

/**
 * Makes the webhook messages of a batch of committed events inside the event bus's dispatch transaction: the
 * messages and the bus's position commit together, so a process killed mid-batch leaves neither, and the batch is
 * handed out again. The delivery loop is woken once they are committed.
 */
export const webhookSubscriber: EventSubscriber = async (events, { ctx, tx, afterCommit }) => {
  const made = await insertMessagesForEvents(
    tx,
    events.map((event) => event.id),
  )
  if (made > 0) afterCommit(() => wakeWebhookDelivery(ctx.pool))
}
