import { z } from 'zod'
import { contactData, contactEmail } from '../contacts/schemas.js'

const eventName = z.string().trim().min(1).max(255)

export const trackBody = z.object({
  email: contactEmail,
  event: eventName,
  subscribed: z.boolean().optional(),
  data: contactData.optional(),
})
export type TrackBody = z.infer<typeof trackBody>

/** Plunk's `/events/track` body: an event on a contact the project already has, optionally about one of its emails. */
const contactEventBody = z.object({
  name: eventName,
  contactId: z.uuid(),
  emailId: z.uuid().optional(),
  data: contactData.optional(),
})
export type ContactEventBody = z.infer<typeof contactEventBody>

function hasAnyKey(body: unknown, keys: readonly string[]): boolean {
  return typeof body === 'object' && body !== null && keys.some((key) => key in body)
}

/**
 * `/events/track` takes either shape: `/v1/track`'s `{email, event}`, or Plunk's `{name, contactId}`, which its MCP
 * sends with a secret key. A body with Plunk's keys and none of ours is read as Plunk's; anything else as ours, so a
 * body that is neither is answered with the fields of the shape it leans to (ours when it leans to none).
 */
export const dashboardTrackBody = z.unknown().transform((body, ctx): TrackBody | ContactEventBody => {
  const plunkShape = hasAnyKey(body, ['name', 'contactId']) && !hasAnyKey(body, ['email', 'event'])
  const parsed = (plunkShape ? contactEventBody : trackBody).safeParse(body, { reportInput: true })
  if (parsed.success) return parsed.data
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue })
  return z.NEVER
})

export function isContactEvent(body: TrackBody | ContactEventBody): body is ContactEventBody {
  return 'contactId' in body
}

export const trackResult = z.object({
  success: z.literal(true),
  data: z.object({ contact: z.uuid(), event: z.uuid(), timestamp: z.date() }),
})
