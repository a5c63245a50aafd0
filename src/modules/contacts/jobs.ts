import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { runBulkJob } from './bulk-job.js'
import { runContactImport } from './import-job.js'
import { markContactJobFailed } from './job-failures.js'
import { endSnoozes } from './snooze.js'

const longJobExpireSeconds = 6 * 3_600

/**
 * Where an import or bulk job lands once pg-boss has given up retrying it, so its progress row says
 * `failed` instead of staying `running` forever. Listed before the queues that name it.
 */
export const contactJobFailedJob = defineJob({
  name: 'contacts-job-failed',
  data: z.object({ importId: z.uuid().optional(), bulkJobId: z.uuid().optional() }),
  queue: { retryLimit: 5 },
  async handle(ctx, jobs) {
    for (const job of jobs) await markContactJobFailed(ctx.db, job)
  },
})

export const importContactsJob = defineJob({
  name: 'contacts-import',
  data: z.object({ importId: z.uuid() }),
  // A dead worker's import is found by its heartbeat (define.ts) in seconds; the expiry only bounds a live one,
  // so it is long enough for the biggest imports.
  queue: { retryLimit: 2, deadLetter: contactJobFailedJob.name, expireInSeconds: longJobExpireSeconds },
  // Someone is usually watching the progress of an import or a bulk job.
  pollingIntervalSeconds: 0.5,
  async handle(ctx, jobs) {
    for (const job of jobs) await runContactImport(ctx, job.importId)
  },
})

export const bulkContactsJob = defineJob({
  name: 'contacts-bulk',
  data: z.object({ bulkJobId: z.uuid() }),
  queue: { retryLimit: 2, deadLetter: contactJobFailedJob.name, expireInSeconds: longJobExpireSeconds },
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
