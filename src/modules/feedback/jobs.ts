import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { deleteFeedbackReceiptsBefore, feedbackReceiptRetentionMs } from './receipts.js'

export const expireFeedbackReceiptsJob = defineJob({
  name: 'feedback-receipts-expire',
  data: z.object({}),
  cron: '41 3 * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    const deleted = await deleteFeedbackReceiptsBefore(ctx.db, new Date(Date.now() - feedbackReceiptRetentionMs))
    if (deleted > 0) ctx.log.info({ deleted }, 'old feedback receipts removed')
  },
})
