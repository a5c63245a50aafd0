import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { compactExecutionCounts } from './counts.js'

/** Every minute: each workflow's appended execution counts folded into one row per status. */
export const compactExecutionCountsJob = defineJob({
  name: 'workflow-counts-compact',
  data: z.object({}),
  cron: '* * * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    await compactExecutionCounts(ctx.db)
  },
})
