import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { applyMatchedPendingReports, deletePendingReportsBefore } from './pending-reports.js'

/**
 * How long a report waits for its provider message id. An id lands milliseconds after the provider's answer, or,
 * when the database is out, as soon as it is back (the recorder keeps retrying); a worker that dies before
 * recording loses the id for good (the email is sent again under a new one). So a report still unmatched after
 * a day names an email that will never carry its id, usually one sent by another system on the same SES topic.
 */
const pendingReportRetentionMs = 24 * 3_600_000

export const settlePendingReportsJob = defineJob({
  name: 'provider-reports-settle',
  data: z.object({}),
  cron: '* * * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    const applied = await applyMatchedPendingReports(ctx.db)
    if (applied > 0) ctx.log.info({ applied }, 'held provider reports applied by the sweep')
    await deletePendingReportsBefore(ctx.db, new Date(Date.now() - pendingReportRetentionMs), ctx.log)
  },
})
