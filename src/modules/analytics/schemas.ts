import { z } from 'zod'
import { isoDateTime } from './period.js'

const count = z.number().int()

/**
 * People's opens and clicks: unique ones (first per email) in `opened` / `clicked`, every one in `opens` /
 * `clicks`; the rates use these. Machines' (privacy proxies, link scanners) in `machineOpens` / `machineClicks`.
 * `captured`: emails the capture transport kept in the Mailbox (MAIL_TRANSPORT=capture), which are never delivered.
 */
const emailMetrics = z.object({
  sent: count,
  captured: count,
  delivered: count,
  opened: count,
  clicked: count,
  bounced: count,
  complained: count,
  opens: count,
  clicks: count,
  machineOpens: count,
  machineClicks: count,
})
export type EmailMetrics = z.infer<typeof emailMetrics>

/** Percentages (0–100, two decimals) of emails sent. */
const emailRates = z.object({
  deliveryRate: z.number(),
  openRate: z.number(),
  clickRate: z.number(),
  bounceRate: z.number(),
  complaintRate: z.number(),
})

const rangeQuery = z.object({ from: isoDateTime.optional(), to: isoDateTime.optional() })

export const timeseriesQuery = rangeQuery.extend({ granularity: z.enum(['hour', 'day']).optional() })
export type TimeseriesQuery = z.infer<typeof timeseriesQuery>

export const timeseries = z.object({
  granularity: z.enum(['hour', 'day']),
  /** The range actually covered: `from` and `to` widened to whole buckets (UTC). */
  from: z.date(),
  to: z.date(),
  data: z.array(emailMetrics.extend({ bucket: z.date() })),
  totals: emailMetrics,
})
export type Timeseries = z.infer<typeof timeseries>

const campaignMetricNames = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'openRate',
  'clickRate',
] as const
export type CampaignMetric = (typeof campaignMetricNames)[number]

const limit = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .default(fallback)
    .transform((value) => Math.min(value, 100))

export const topCampaignsQuery = z.object({ metric: z.enum(campaignMetricNames).default('sent'), limit: limit(10) })
export type TopCampaignsQuery = z.infer<typeof topCampaignsQuery>

const campaignRow = emailMetrics.extend(emailRates.shape).extend({
  campaignId: z.uuid(),
  /** The campaign's name; null once the campaign is deleted. */
  name: z.string().nullable(),
})
export type CampaignRow = z.infer<typeof campaignRow>

export const topCampaigns = z.object({ metric: z.enum(campaignMetricNames), data: z.array(campaignRow) })

export const campaignStatsQuery = z.object({ campaignId: z.uuid().optional() })

export const campaignStats = emailMetrics.extend(emailRates.shape).extend({
  /** Campaigns that have sent at least one email (one, or none, with `campaignId`). */
  campaigns: count,
})
export type CampaignStats = z.infer<typeof campaignStats>

export const topEventsQuery = rangeQuery.extend({ limit: limit(10) })
export type TopEventsQuery = z.infer<typeof topEventsQuery>

export const topEvents = z.object({
  from: z.date(),
  to: z.date(),
  /** Custom events only; `previousCount` covers the period of the same length just before. */
  events: z.array(z.object({ name: z.string(), count, previousCount: count })),
})
export type TopEvents = z.infer<typeof topEvents>
