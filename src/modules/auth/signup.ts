import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { normalizeEmail } from '../../mail/address.js'
import { acceptInvitation, invitationEmail } from '../members/invitations.js'
import { wakeSystemMail } from '../system-mail/service.js'
import type { Credentials, UserView } from '../users/schemas.js'
import { authenticateUser, createUser } from '../users/service.js'
import { queueVerificationEmail } from './email-verification.js'

/**
 * A new password account. When verification is required (REQUIRE_EMAIL_VERIFICATION, as Plunk does when its
 * platform mail is on) its verification email commits with it; otherwise the user asks for one with
 * /auth/request-verification. With an invitation to this address the account joins the project and counts as
 * verified (the link reached the mailbox), so no email is sent.
 */
export async function signUp(ctx: AppContext, input: Credentials): Promise<UserView> {
  const email = normalizeEmail(input.email)
  const invited = input.invitation ? await invitationEmail(ctx, ctx.db, input.invitation) : undefined
  if (input.invitation && invited !== email) {
    throw new AppError('BAD_REQUEST', 'Invalid or expired invitation for this address')
  }
  const user = await ctx.db.transaction(async (tx) => {
    const created = await createUser(tx, input, { emailVerified: invited !== undefined })
    if (input.invitation) await acceptInvitation(ctx, tx, input.invitation, created)
    else if (ctx.config.requireEmailVerification) await queueVerificationEmail(ctx, tx, created)
    return created
  })
  if (!input.invitation && ctx.config.requireEmailVerification) wakeSystemMail(ctx)
  return user
}

/** Password login; an invitation given with it is accepted in the same step, or the login fails as a whole. */
export async function logIn(
  ctx: AppContext,
  input: { email: string; password: string; invitation?: string | undefined },
): Promise<UserView> {
  const user = await authenticateUser(ctx.db, input.email, input.password)
  const { invitation } = input
  if (invitation) await ctx.db.transaction((tx) => acceptInvitation(ctx, tx, invitation, user))
  return user
}
