import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { users } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { verificationMessage } from '../system-mail/messages.js'
import { queueSystemEmail, wakeSystemMail } from '../system-mail/service.js'
import { consumeAccountToken, countRecentAccountTokens, issueAccountToken } from './account-tokens.js'

/** Account emails of one kind per address per hour; more would make Mailroom a tool for mail-bombing someone. */
export const accountEmailsPerHour = 3

type MailContext = Pick<AppContext, 'config' | 'log' | 'db'>

function verificationLink(ctx: MailContext, token: string): string {
  // The dashboard's page, which POSTs the token to /auth/verify-email and shows the result.
  return `${ctx.config.publicUrl}/app/verify-email?token=${token}`
}

/** Issues a token and queues the email in the caller's transaction (signup's, or its own). */
export async function queueVerificationEmail(
  ctx: MailContext,
  tx: Executor,
  user: { id: string; email: string },
): Promise<void> {
  const token = await issueAccountToken(tx, 'VERIFY_EMAIL', user.id, user.email)
  await queueSystemEmail(ctx, tx, user.email, verificationMessage(verificationLink(ctx, token)), {
    kind: 'VERIFY_EMAIL',
    userId: user.id,
  })
}

export type RequestVerificationResult = 'sent' | 'already-verified'

export async function requestVerificationEmail(ctx: AppContext, userId: string): Promise<RequestVerificationResult> {
  const sent = await ctx.db.transaction(async (tx) => {
    // Locks the user row, so concurrent requests count each other's tokens.
    const [user] = await tx
      .select({ id: users.id, email: users.email, emailVerified: users.emailVerified })
      .from(users)
      .where(eq(users.id, userId))
      .for('update')
    if (!user) throw new AppError('UNAUTHORIZED', 'Log in first')
    if (user.emailVerified) return false
    if ((await countRecentAccountTokens(tx, 'VERIFY_EMAIL', user.id)) >= accountEmailsPerHour) {
      throw new AppError('RATE_LIMIT_EXCEEDED', `At most ${accountEmailsPerHour} verification emails an hour`, {
        details: { limit: accountEmailsPerHour, windowSeconds: 3600 },
      })
    }
    await queueVerificationEmail(ctx, tx, user)
    return true
  })
  if (!sent) return 'already-verified'
  wakeSystemMail(ctx)
  return 'sent'
}

/** Verifies the address the token was mailed to, if it is still the account's address. */
export async function verifyEmail(ctx: AppContext, token: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const owner = await consumeAccountToken(tx, 'VERIFY_EMAIL', token)
    const verified = owner
      ? await tx
          .update(users)
          .set({ emailVerified: true })
          .where(and(eq(users.id, owner.userId), eq(users.email, owner.email)))
          .returning({ id: users.id })
      : []
    // Thrown inside the transaction, so a token whose address changed stays unused.
    if (verified.length === 0) throw new AppError('BAD_REQUEST', 'Invalid or expired verification token')
  })
}
