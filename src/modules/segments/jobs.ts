import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { sweepSegments } from './sweep.js'

/**
 * Every minute: fresh counts for GET /segments and tracked memberships caught up with time-based conditions.
 * Changes that come with an event reach tracked segments within a dispatch cycle through the event bus
 * (subscriber.ts); this sweep is the backstop. A run stops starting segments after 45 s so runs never pile up,
 * and skips segments counted in the last 30 s (a write or a refresh did it).
 */
export const sweepSegmentsJob = defineJob({
  name: 'segments-sweep',
  data: z.object({}),
  cron: '* * * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    const result = await sweepSegments(ctx, { budgetMs: 45_000, freshMs: 30_000 })
    if (result.failed > 0 || result.left > 0) ctx.log.warn(result, 'segment sweep incomplete')
  },
})
