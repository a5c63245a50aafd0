import { lt, sql } from 'drizzle-orm'
import { z } from 'zod'
import { accountTokens, invitations, sessions } from '../../db/schema/index.js'
import { defineJob } from '../../jobs/define.js'

/** Expired sessions, account tokens and invitations: a day past expiry, nothing reads them any more. */
export const expireAccountRowsJob = defineJob({
  name: 'account-rows-expire',
  data: z.object({}),
  cron: '17 4 * * *',
  queue: { policy: 'singleton' },
  async handle(ctx) {
    const cutoff = sql`now() - interval '1 day'`
    const counts = await ctx.db.transaction(async (tx) => ({
      sessions: (await tx.delete(sessions).where(lt(sessions.expiresAt, cutoff)).returning({ id: sessions.id })).length,
      tokens: (
        await tx.delete(accountTokens).where(lt(accountTokens.expiresAt, cutoff)).returning({ id: accountTokens.id })
      ).length,
      invitations: (
        await tx.delete(invitations).where(lt(invitations.expiresAt, cutoff)).returning({ id: invitations.id })
      ).length,
    }))
    if (counts.sessions + counts.tokens + counts.invitations > 0) ctx.log.info(counts, 'expired account rows removed')
  },
})
