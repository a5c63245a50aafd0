import { sql } from 'drizzle-orm'
import { defineLoop } from '../../jobs/loop.js'
import { fanOutChunk } from './fan-out.js'
import { startDueCampaigns } from './send.js'

/**
 * Starts scheduled campaigns on time and queues the audiences of sending ones, a chunk at a time. A loop, not a
 * job: a campaign sent now should be queued within the second. Any number of workers may run it side by side.
 */
export const campaignsLoop = defineLoop({
  name: 'campaigns',
  idleMs: 250,
  errorBackoffMs: 2_000,
  run: async (ctx) => {
    // One statement when there is nothing to do: the transaction that starts campaigns opens only when one is due.
    const work = await ctx.db.execute<{ id: string; status: 'SCHEDULED' | 'SENDING' }>(sql`
      (SELECT id, status FROM campaigns WHERE status = 'SCHEDULED' AND scheduled_for <= now() LIMIT 1)
      UNION ALL
      (SELECT id, status FROM campaigns WHERE status = 'SENDING' AND queued_at IS NULL ORDER BY sent_at LIMIT 10)`)
    // The campaigns it starts are queued on the next run, at once.
    let more = work.rows.some((row) => row.status === 'SCHEDULED') && (await startDueCampaigns(ctx)) > 0
    for (const { id, status } of work.rows) {
      if (status === 'SENDING') more = (await fanOutChunk(ctx, id)) || more
    }
    return more
  },
})
