import { z } from 'zod'
import { newPassword } from '../users/password-policy.js'

// Tokens are 64 hex characters (32 random bytes), as Plunk's.
const accountToken = z.string().regex(/^[0-9a-f]{64}$/, 'must be a 64-character hex token')

export const verifyEmailBody = z.object({ token: accountToken })

export const passwordResetRequestBody = z.object({ email: z.email().max(254) })

export const resetPasswordBody = z.object({ token: accountToken, newPassword })

/** Plunk's envelope for the account flows. */
export const messageView = z.object({ success: z.literal(true), data: z.object({ message: z.string() }) })
export type MessageView = z.infer<typeof messageView>

export function message(text: string): MessageView {
  return { success: true, data: { message: text } }
}

export const oauthConfigView = z.object({
  success: z.literal(true),
  data: z.object({ github: z.boolean(), google: z.boolean() }),
})
