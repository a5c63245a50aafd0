import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'

export type WindowCounts = { sent: number; bounces: number; complaints: number }

/** A rate in percent, as Plunk reports them; 0 when nothing was sent. */
export function percent(part: number, whole: number): number {
  // Multiplying first keeps exact cases exact (2 of 25 is 8, not 8.000000000000002).
  return whole > 0 ? (part * 100) / whole : 0
}

type RateWindow = {
  total: number
  bounces: number
  complaints: number
  bounceRate: number
  complaintRate: number
}

function rateWindow(counts: WindowCounts): RateWindow {
  return {
    total: counts.sent,
    bounces: counts.bounces,
    complaints: counts.complaints,
    bounceRate: percent(counts.bounces, counts.sent),
    complaintRate: percent(counts.complaints, counts.sent),
  }
}

export type ProjectRates = { twentyFourHour: RateWindow; sevenDay: RateWindow; allTime: RateWindow }

type RatesRow = {
  day_sent: number
  day_bounces: number
  day_complaints: number
  week_sent: number
  week_bounces: number
  week_complaints: number
  all_sent: number
  all_bounces: number
  all_complaints: number
}

/**
 * 24 h, 7 days and all time from the hourly rollup, in one pass over the project's rows (one per hour with
 * mail: under 9,000 a year). Windows are whole hours: the current hour plus the 23 (or 167) before it.
 */
export async function projectRates(db: Executor, projectId: string): Promise<ProjectRates> {
  const result = await db.execute<RatesRow>(sql`
    WITH bounds AS (SELECT date_trunc('hour', now(), 'UTC') - interval '23 hours' AS day,
                           date_trunc('hour', now(), 'UTC') - interval '167 hours' AS week)
    SELECT
      COALESCE(sum(c.sent) FILTER (WHERE c.hour >= b.day), 0)::int AS day_sent,
      COALESCE(sum(c.bounces) FILTER (WHERE c.hour >= b.day), 0)::int AS day_bounces,
      COALESCE(sum(c.complaints) FILTER (WHERE c.hour >= b.day), 0)::int AS day_complaints,
      COALESCE(sum(c.sent) FILTER (WHERE c.hour >= b.week), 0)::int AS week_sent,
      COALESCE(sum(c.bounces) FILTER (WHERE c.hour >= b.week), 0)::int AS week_bounces,
      COALESCE(sum(c.complaints) FILTER (WHERE c.hour >= b.week), 0)::int AS week_complaints,
      COALESCE(sum(c.sent), 0)::bigint::float8 AS all_sent,
      COALESCE(sum(c.bounces), 0)::bigint::float8 AS all_bounces,
      COALESCE(sum(c.complaints), 0)::bigint::float8 AS all_complaints
    FROM bounds b LEFT JOIN reputation_counts c ON c.project_id = ${projectId}
    GROUP BY b.day, b.week`)
  const row = result.rows[0]
  if (!row) throw new Error('rates query returned no row')
  return {
    twentyFourHour: rateWindow({ sent: row.day_sent, bounces: row.day_bounces, complaints: row.day_complaints }),
    sevenDay: rateWindow({ sent: row.week_sent, bounces: row.week_bounces, complaints: row.week_complaints }),
    allTime: rateWindow({ sent: row.all_sent, bounces: row.all_bounces, complaints: row.all_complaints }),
  }
}
