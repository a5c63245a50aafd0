import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { deleteExpiredWebhookMessages } from './messages.js'

/** The delivery log is kept WEBHOOK_LOG_RETENTION_DAYS (30 by default): messages older go, with their attempts. */
export const expireWebhookMessagesJob = defineJob({
  name: 'webhook-messages-expire',
  data: z.object({}),
  cron: '41 * * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    let deleted = 0
    let slice = 0
    // In slices, so one run never holds a long transaction over a busy table.
    do {
      slice = await deleteExpiredWebhookMessages(ctx.db, ctx.config.webhooks.logRetentionDays)
      deleted += slice
    } while (slice > 0)
    if (deleted > 0) ctx.log.info({ deleted }, 'expired webhook messages removed')
  },
})
