import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { runBulkJob } from './bulk.js'
import { runContactImport } from './import.js'
import { endSnoozes } from './snooze.js'

export const importContactsJob = defineJob({
  name: 'contacts-import',
  data: z.object({ importId: z.uuid() }),
  queue: { retryLimit: 2 },
  // Someone is usually watching the progress of an import or a bulk job.
  pollingIntervalSeconds: 0.5,
  async handle(ctx, jobs) {
    for (const job of jobs) await runContactImport(ctx, job.importId)
  },
})

export const bulkContactsJob = defineJob({
  name: 'contacts-bulk',
  data: z.object({ bulkJobId: z.uuid() }),
  queue: { retryLimit: 2 },
  batchSize: 10,
  pollingIntervalSeconds: 0.5,
  async handle(ctx, jobs) {
    for (const job of jobs) await runBulkJob(ctx, job.bulkJobId)
  },
})

export const endSnoozesJob = defineJob({
  name: 'contacts-snooze-end',
  data: z.object({}),
  cron: '* * * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    const resubscribed = await endSnoozes(ctx)
    if (resubscribed > 0) ctx.log.info({ resubscribed }, 'snoozed contacts resubscribed')
  },
})
