import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { deleteExpiredIdempotencyKeys } from './service.js'

export const expireIdempotencyKeysJob = defineJob({
  name: 'idempotency-expire',
  data: z.object({}),
  cron: '17 * * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    const deleted = await deleteExpiredIdempotencyKeys(ctx.db)
    if (deleted > 0) ctx.log.info({ deleted }, 'expired idempotency keys removed')
  },
})
