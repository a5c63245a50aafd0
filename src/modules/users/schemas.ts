import { z } from 'zod'

export const credentials = z.object({
  email: z.email().max(254),
  password: z.string().min(8, 'must be at least 8 characters').max(256),
})
export type Credentials = z.infer<typeof credentials>

export const loginBody = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(256),
})

export const userView = z.object({
  id: z.uuid(),
  email: z.email(),
  emailVerified: z.boolean(),
  createdAt: z.date(),
})
export type UserView = z.infer<typeof userView>
