import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { countCapturedByBucket, countCapturedByCampaign, countCapturedCampaignEmails } from './captured.js'
import {
  bucketStarts,
  ceilTo,
  countBuckets,
  dayMs,
  floorTo,
  type Granularity,
  invalidQuery,
  resolveRange,
} from './period.js'
import { withRates } from './rates.js'
import type {
  CampaignMetric,
  CampaignRow,
  CampaignStats,
  EmailMetrics,
  Timeseries,
  TimeseriesQuery,
  TopCampaignsQuery,
  TopEvents,
  TopEventsQuery,
} from './schemas.js'
import {
  internalEventNameSql,
  type MetricName,
  type MetricRow,
  metricColumns,
  metricEventNames,
  metricSources,
} from './sql.js'

const metricNames = Object.keys(metricSources) as MetricName[]

function toMetrics(row: MetricRow | undefined, captured = 0): EmailMetrics {
  const metrics = { captured } as EmailMetrics
  for (const name of metricNames) metrics[name] = Number(row?.[name] ?? 0)
  return metrics
}

/** Hourly buckets are meant for short ranges, daily ones for long ones; both are capped to keep answers small. */
const maxBuckets: Record<Granularity, number> = { hour: 31 * 24, day: 400 }

/** Email metrics per UTC hour or day over `[from, to)` (default: the last 30 days), every bucket present. */
export async function getTimeseries(db: Executor, projectId: string, query: TimeseriesQuery): Promise<Timeseries> {
  const range = resolveRange(query)
  const granularity = query.granularity ?? (range.to.getTime() - range.from.getTime() <= 2 * dayMs ? 'hour' : 'day')
  const from = floorTo(range.from, granularity)
  const to = ceilTo(range.to, granularity)
  // Counted before any bucket exists: a range of centuries would otherwise allocate millions of them first.
  if (countBuckets(from, to, granularity) > maxBuckets[granularity]) {
    throw invalidQuery([
      {
        field: 'from',
        code: 'too_big',
        message: `At most ${maxBuckets[granularity]} ${granularity} buckets per request; shorten the range or use daily buckets`,
      },
    ])
  }
  const buckets = bucketStarts(from, to, granularity)
  const result = await db.execute<MetricRow & { bucket: string }>(sql`
    SELECT date_trunc(${granularity}, hour, 'UTC') AS bucket, ${metricColumns()}
    FROM event_counts_hourly
    WHERE project_id = ${projectId} AND name = ANY(${sql.param(metricEventNames)}::text[])
      AND hour >= ${from} AND hour < ${to}
    GROUP BY 1`)
  const byBucket = new Map(result.rows.map((row) => [new Date(row.bucket).getTime(), row]))
  const captured = await countCapturedByBucket(db, projectId, granularity, { from, to })
  const data = buckets.map((bucket) => ({
    bucket,
    ...toMetrics(byBucket.get(bucket.getTime()), captured.get(bucket.getTime())),
  }))
  const totals = toMetrics(undefined)
  for (const point of data) {
    totals.captured += point.captured
    for (const name of metricNames) totals[name] += point[name]
  }
  return { granularity, from, to, data, totals }
}

const campaignOrder: Record<CampaignMetric, string> = {
  sent: '"sent"',
  delivered: '"delivered"',
  opened: '"opened"',
  clicked: '"clicked"',
  bounced: '"bounced"',
  complained: '"complained"',
  openRate: '"opened"::float8 / NULLIF("sent", 0)',
  clickRate: '"clicked"::float8 / NULLIF("sent", 0)',
}

/**
 * Campaigns ranked by a metric, all time, from the per-campaign rollup (emails carry their campaign id in
 * every email event), named from their records (null for a deleted campaign).
 */
export async function getTopCampaigns(
  db: Executor,
  projectId: string,
  query: TopCampaignsQuery,
): Promise<{ metric: CampaignMetric; data: CampaignRow[] }> {
  const result = await db.execute<MetricRow & { campaign_id: string; campaign_name: string | null }>(sql`
    SELECT per_campaign.*, c.name AS campaign_name FROM (
      SELECT campaign_id, ${metricColumns()}
      FROM campaign_event_counts WHERE project_id = ${projectId}
      GROUP BY campaign_id
    ) per_campaign
    LEFT JOIN campaigns c ON c.id = per_campaign.campaign_id AND c.project_id = ${projectId}
    ORDER BY ${sql.raw(campaignOrder[query.metric])} DESC NULLS LAST, campaign_id
    LIMIT ${query.limit}`)
  const captured = await countCapturedByCampaign(
    db,
    projectId,
    result.rows.map((row) => row.campaign_id),
  )
  return {
    metric: query.metric,
    data: result.rows.map((row) => ({
      campaignId: row.campaign_id,
      name: row.campaign_name,
      ...withRates(toMetrics(row, captured.get(row.campaign_id))),
    })),
  }
}

/** Totals over every campaign of the project, or over one (`campaignId`). */
export async function getCampaignStats(
  db: Executor,
  projectId: string,
  query: { campaignId?: string },
): Promise<CampaignStats> {
  const campaign = query.campaignId ? sql` AND campaign_id = ${query.campaignId}` : sql``
  const result = await db.execute<MetricRow & { campaigns: number }>(sql`
    SELECT (count(DISTINCT campaign_id) FILTER (WHERE name = 'email.sent'))::int AS campaigns, ${metricColumns()}
    FROM campaign_event_counts WHERE project_id = ${projectId}${campaign}`)
  const row = result.rows[0]
  const captured = await countCapturedCampaignEmails(db, projectId, query.campaignId)
  return { campaigns: row?.campaigns ?? 0, ...withRates(toMetrics(row, captured)) }
}

/** The most frequent custom event names over `[from, to)` widened to whole hours, with the period before. */
export async function getTopEvents(db: Executor, projectId: string, query: TopEventsQuery): Promise<TopEvents> {
  const range = resolveRange(query)
  const from = floorTo(range.from, 'hour')
  const to = ceilTo(range.to, 'hour')
  // No event predates the Unix epoch (created_at is the server's clock); the floor also keeps a range of
  // millennia from doubling back past PostgreSQL's earliest timestamp (4713 BC).
  const previousFrom = new Date(Math.max(0, from.getTime() - (to.getTime() - from.getTime())))
  const result = await db.execute<{ name: string; count: string; previous_count: string }>(sql`
    SELECT name, count, previous_count FROM (
      SELECT name,
        coalesce(sum(count) FILTER (WHERE hour >= ${from}), 0) AS count,
        coalesce(sum(count) FILTER (WHERE hour < ${from}), 0) AS previous_count
      FROM event_counts_hourly
      WHERE project_id = ${projectId} AND hour >= ${previousFrom} AND hour < ${to}
        AND NOT ${internalEventNameSql(sql.raw('name'))}
      GROUP BY name
    ) counted
    WHERE count > 0
    ORDER BY count DESC, name
    LIMIT ${query.limit}`)
  return {
    from,
    to,
    events: result.rows.map((row) => ({
      name: row.name,
      count: Number(row.count),
      previousCount: Number(row.previous_count),
    })),
  }
}
