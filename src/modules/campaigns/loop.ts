import { sql } from 'drizzle-orm'
import { defineLoop } from '../../jobs/loop.js'
import { holdCampaignPace } from '../delivery/pacing.js'
import { fanOutChunk } from './fan-out.js'
import { dueToStart, startDueCampaigns } from './send.js'
import { campaignsLoopName } from './wake.js'

/** Sending campaigns whose audience the fan-out has not queued in full yet. */
const notYetQueued = sql`status = 'SENDING' AND queued_at IS NULL`

/**
 * Starts scheduled campaigns on time and queues the audiences of sending ones, a chunk at a time. A loop, not a
 * job: a campaign sent now should be queued within the second. Any number of workers may run it side by side.
 */
export const campaignsLoop = defineLoop({
  name: campaignsLoopName,
  idleMs: 250,
  errorBackoffMs: 2_000,
  hasWork: async (ctx) => {
    const work = await ctx.db.execute(sql`
      SELECT 1 WHERE EXISTS (SELECT 1 FROM campaigns WHERE ${dueToStart})
        OR EXISTS (SELECT 1 FROM campaigns WHERE ${notYetQueued})`)
    return work.rows.length > 0
  },
  run: async (ctx) => {
    await startDueCampaigns(ctx)
    const sending = await ctx.db.execute<{ id: string }>(sql`
      SELECT id FROM campaigns WHERE ${notYetQueued} ORDER BY sent_at LIMIT 10`)
    let more = false
    // Campaign mail of this process's outbox keeps to its least window meanwhile: the fan-out's inserts, not the
    // delivery of its first emails, should have the machine, and transactional mail what is left.
    const release = sending.rows.length > 0 ? holdCampaignPace(ctx.pool) : () => {}
    try {
      for (const { id } of sending.rows) more = (await fanOutChunk(ctx, id)) || more
    } finally {
      release()
    }
    return more
  },
})
