import { z } from 'zod'
import { newPassword } from './password-policy.js'

// A signed invitation link's token: signing up or logging in with it joins the project it invites to.
const invitation = z.string().min(1).max(512).optional()

export const credentials = z.object({
  email: z.email().max(254),
  password: newPassword,
  invitation,
})
export type Credentials = z.infer<typeof credentials>

export const loginBody = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(256),
  invitation,
})

export const userView = z.object({
  id: z.uuid(),
  email: z.email(),
  emailVerified: z.boolean(),
  createdAt: z.date(),
})
export type UserView = z.infer<typeof userView>
