import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import { oauthAccounts, users } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { normalizeEmail } from '../../mail/address.js'
import { endUserSessions } from '../sessions/session.js'
import type { OAuthProfile, OAuthProvider } from './profiles.js'

/**
 * The user an OAuth sign-in stands for: the one already linked to this provider account; else the account with
 * the provider-verified address, which gets linked; else a new verified account without a password. An address
 * the provider does not vouch for links and creates nothing.
 *
 * Linking to an account whose own address was never verified voids that account's password and sessions: whoever
 * signed up with someone else's address before them must not keep a way in once the owner arrives.
 */
export async function signInWithOAuth(
  ctx: AppContext,
  provider: OAuthProvider,
  profile: OAuthProfile,
): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const [linked] = await tx
      .select({ userId: oauthAccounts.userId })
      .from(oauthAccounts)
      .where(and(eq(oauthAccounts.provider, provider), eq(oauthAccounts.providerAccountId, profile.accountId)))
    if (linked) return linked.userId
    if (!profile.email) {
      throw new AppError('BAD_REQUEST', `Your ${provider} account has no verified primary email address`, {
        suggestion: `Verify an address at ${provider}, or sign up with email and password`,
      })
    }
    const email = normalizeEmail(profile.email)
    const [existing] = await tx
      .select({ id: users.id, emailVerified: users.emailVerified })
      .from(users)
      .where(eq(users.email, email))
      .for('update')
    let userId: string
    if (existing) {
      userId = existing.id
      if (!existing.emailVerified) {
        await tx.update(users).set({ emailVerified: true, passwordHash: null }).where(eq(users.id, userId))
        await endUserSessions(tx, userId)
      }
    } else {
      if (ctx.config.disableSignups) throw new AppError('SIGNUPS_DISABLED', 'Signups are disabled on this server')
      const [created] = await tx
        .insert(users)
        .values({ email, passwordHash: null, emailVerified: true })
        .returning({ id: users.id })
      if (!created) throw new Error('user insert returned nothing')
      userId = created.id
    }
    await tx.insert(oauthAccounts).values({ provider, providerAccountId: profile.accountId, userId })
    return userId
  })
}
