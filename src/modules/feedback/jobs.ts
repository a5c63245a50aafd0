import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { deleteFeedbackReceiptsBefore } from './receipts.js'

// SNS gives up redelivering an HTTP(S) notification within an hour at most; a week is ample.
const receiptRetentionMs = 7 * 24 * 3_600_000

export const expireFeedbackReceiptsJob = defineJob({
  name: 'feedback-receipts-expire',
  data: z.object({}),
  cron: '41 3 * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    const deleted = await deleteFeedbackReceiptsBefore(ctx.db, new Date(Date.now() - receiptRetentionMs))
    if (deleted > 0) ctx.log.info({ deleted }, 'old feedback receipts removed')
  },
})
