import { hash } from '@node-rs/argon2'
import { eq } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import { users } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { normalizeEmail } from '../../mail/address.js'
import { endUserSessions } from '../sessions/session.js'
import { passwordResetMessage } from '../system-mail/messages.js'
import { queueSystemEmail, wakeSystemMail } from '../system-mail/service.js'
import { consumeAccountToken, countRecentAccountTokens, issueAccountToken } from './account-tokens.js'
import { accountEmailsPerHour } from './email-verification.js'

/**
 * Mails a reset link when the address has an account and fewer than `accountEmailsPerHour` links went to it in
 * the last hour. The caller answers the same in every case, so the route never tells whether an account exists.
 */
export async function requestPasswordReset(ctx: AppContext, email: string): Promise<void> {
  const sent = await ctx.db.transaction(async (tx) => {
    const [user] = await tx
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(eq(users.email, normalizeEmail(email)))
      .for('update')
    if (!user) return false
    if ((await countRecentAccountTokens(tx, 'RESET_PASSWORD', user.id)) >= accountEmailsPerHour) return false
    const token = await issueAccountToken(tx, 'RESET_PASSWORD', user.id, user.email)
    // The dashboard's page asks for the new password and POSTs it with the token to /auth/reset-password.
    const link = `${ctx.config.publicUrl}/app/reset-password?token=${token}`
    await queueSystemEmail(ctx, tx, user.email, passwordResetMessage(link), { kind: 'RESET_PASSWORD', userId: user.id })
    return true
  })
  if (sent) wakeSystemMail(ctx)
}

/**
 * Sets the new password and ends every other session of the user at once: whoever knew the old password is
 * logged out. The caller's own session survives only if it is this user's. The link proved the mailbox, so the
 * address counts as verified.
 */
export async function resetPassword(
  ctx: AppContext,
  token: string,
  password: string,
  caller: { userId: string | null; sessionId: string | null },
): Promise<void> {
  const passwordHash = await hash(password)
  await ctx.db.transaction(async (tx) => {
    const owner = await consumeAccountToken(tx, 'RESET_PASSWORD', token)
    if (!owner) throw new AppError('BAD_REQUEST', 'Invalid or expired reset token')
    const [user] = await tx
      .update(users)
      .set({ passwordHash })
      .where(eq(users.id, owner.userId))
      .returning({ email: users.email })
    if (!user) throw new AppError('BAD_REQUEST', 'Invalid or expired reset token')
    if (user.email === owner.email)
      await tx.update(users).set({ emailVerified: true }).where(eq(users.id, owner.userId))
    await endUserSessions(tx, owner.userId, caller.userId === owner.userId ? caller.sessionId : null)
  })
}
