import type { AppContext } from '../../context.js'
import { wakeSystemMail } from '../system-mail/service.js'
import type { Credentials, UserView } from '../users/schemas.js'
import { createUser } from '../users/service.js'
import { queueVerificationEmail } from './email-verification.js'

/** A new password account; its verification email commits with it. */
export async function signUp(ctx: AppContext, input: Credentials): Promise<UserView> {
  const user = await ctx.db.transaction(async (tx) => {
    const created = await createUser(tx, input)
    await queueVerificationEmail(ctx, tx, created)
    return created
  })
  wakeSystemMail(ctx)
  return user
}
