import type { AppContext } from '../../context.js'
import { publishEvents } from '../../events/bus.js'
import { contactSubscribedEvent } from '../../events/names.js'
import { endExpiredSnoozes } from './sql.js'

const batchSize = 1000

/** Resubscribes every contact whose snooze window has ended, emitting `contact.subscribed` for each. */
export async function endSnoozes(ctx: AppContext): Promise<number> {
  let total = 0
  for (;;) {
    const done = await ctx.db.transaction(async (tx) => {
      const rows = await endExpiredSnoozes(tx, batchSize)
      await publishEvents(
        tx,
        rows.map((row) => ({ projectId: row.project_id, contactId: row.id, name: contactSubscribedEvent })),
      )
      return rows.length
    })
    total += done
    if (done < batchSize) return total
  }
}
