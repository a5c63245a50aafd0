import { z } from 'zod'
import { defineJob } from '../../jobs/define.js'
import { createAuditDeps } from './audit/deps.js'
import { verifyPendingDomains } from './check.js'

export const verifyPendingDomainsJob = defineJob({
  name: 'domains-verify-pending',
  data: z.object({}),
  // The spec's "background check every 5 minutes".
  cron: '*/5 * * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    const result = await verifyPendingDomains(ctx.db, ctx.config, createAuditDeps(ctx.config))
    if (result.verified > 0) ctx.log.info(result, 'pending domains verified')
  },
})
