import { z } from 'zod'
import { cursorPage, cursorPageQuery } from '../../http/pagination.js'
import { isoDateTime } from '../analytics/period.js'
import { activityTypes } from './types.js'

const activityTypesParameter = z
  .string()
  .transform((text) => text.split(',').map((type) => type.trim()))
  .pipe(z.array(z.enum(activityTypes)).min(1).max(activityTypes.length))

export const activityListQuery = cursorPageQuery.extend({
  /** Comma-separated activity types, e.g. `email.opened,email.clicked`. */
  types: activityTypesParameter.optional(),
  contactId: z.uuid().optional(),
  startDate: isoDateTime.optional(),
  endDate: isoDateTime.optional(),
})
export type ActivityListQuery = z.infer<typeof activityListQuery>

const activityView = z.object({
  id: z.string(),
  /** The activity type (see /activity/types); `name` is the underlying event name. */
  type: z.string(),
  name: z.string(),
  timestamp: z.date(),
  contact: z.object({ id: z.uuid(), email: z.string() }).nullable(),
  /** The event payload (the spec's `event` object). */
  data: z.record(z.string(), z.unknown()),
})
export type ActivityView = z.infer<typeof activityView>

export const activityPage = cursorPage(activityView)

export const activityPeriodQuery = z.object({ startDate: isoDateTime.optional(), endDate: isoDateTime.optional() })

export const activityStats = z.object({
  startDate: z.date(),
  endDate: z.date(),
  totalEvents: z.number().int(),
  totalEmailsSent: z.number().int(),
  totalEmailsDelivered: z.number().int(),
  /** Unique: people's first opens and first clicks. */
  totalEmailsOpened: z.number().int(),
  totalEmailsClicked: z.number().int(),
  /** Every open and click by a machine (privacy proxy, link scanner), left out of the rates. */
  totalMachineOpens: z.number().int(),
  totalMachineClicks: z.number().int(),
  totalEmailsBounced: z.number().int(),
  totalEmailsComplained: z.number().int(),
  totalWorkflowsStarted: z.number().int(),
  /** Percentages of emails sent in the period, people only. */
  openRate: z.number(),
  clickRate: z.number(),
  byType: z.array(z.object({ type: z.string(), count: z.number().int() })),
})
export type ActivityStats = z.infer<typeof activityStats>

export const recentCountQuery = z.object({
  /** Minutes back from now (default 5, at most 30 days), unless `since` is given. */
  minutes: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 60)
    .optional(),
  since: isoDateTime.optional(),
})

export const recentCount = z.object({ count: z.number().int(), since: z.date() })

export const activityTypeList = z.object({ data: z.array(z.string()) })

export const upcomingQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .transform((limit) => Math.min(limit, 100)),
  daysAhead: z.coerce.number().int().min(1).max(365).default(30),
})
export type UpcomingQuery = z.infer<typeof upcomingQuery>

const upcomingActivity = z.object({
  id: z.string(),
  type: z.string(),
  timestamp: z.date(),
  contact: z.object({ id: z.uuid(), email: z.string() }).nullable(),
  data: z.record(z.string(), z.unknown()),
})
export type UpcomingActivity = z.infer<typeof upcomingActivity>

export const upcomingList = z.object({ data: z.array(upcomingActivity) })
