import { z } from 'zod'
import { cursorPage, cursorPageQuery } from '../../http/pagination.js'

const eventView = z.object({
  id: z.uuid(),
  name: z.string(),
  contactId: z.uuid().nullable(),
  email: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.date(),
})
export type EventView = z.infer<typeof eventView>

export const eventListQuery = cursorPageQuery.extend({
  name: z.string().min(1).max(255).optional(),
})
export type EventListQuery = z.infer<typeof eventListQuery>

export const eventPage = cursorPage(eventView)

export const contactEventsParams = z.object({ contactId: z.uuid() })
export const eventNameParams = z.object({ eventName: z.string().min(1).max(255) })

export const eventNameList = z.object({
  data: z.array(
    z.object({ name: z.string(), count: z.number().int(), lastTrackedAt: z.date(), reserved: z.boolean() }),
  ),
})

export const eventStats = z.object({
  total: z.number().int(),
  last24Hours: z.number().int(),
  last7Days: z.number().int(),
  last30Days: z.number().int(),
  uniqueContacts: z.number().int(),
  topEvents: z.array(z.object({ name: z.string(), count: z.number().int() })),
})

export const eventUsage = z.object({
  event: z.string(),
  segments: z.array(z.object({ id: z.string(), name: z.string() })),
  campaigns: z.array(z.object({ id: z.string(), name: z.string() })),
  workflows: z.array(z.object({ id: z.string(), name: z.string() })),
})
export type EventUsage = z.infer<typeof eventUsage>
