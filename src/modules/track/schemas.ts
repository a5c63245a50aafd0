import { z } from 'zod'
import { contactData, contactEmail } from '../contacts/schemas.js'

export const trackBody = z.object({
  email: contactEmail,
  event: z.string().trim().min(1).max(255),
  subscribed: z.boolean().optional(),
  data: contactData.optional(),
})
export type TrackBody = z.infer<typeof trackBody>

export const trackResult = z.object({
  success: z.literal(true),
  data: z.object({ contact: z.uuid(), event: z.uuid(), timestamp: z.date() }),
})
