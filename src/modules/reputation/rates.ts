import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'

export type WindowCounts = { sent: number; bounces: number; complaints: number }

/** A rate in percent, as Plunk reports them; 0 when nothing was sent. */
export function percent(part: number, whole: number): number {
  // Multiplying first keeps exact cases exact (2 of 25 is 8, not 8.000000000000002).
  return whole > 0 ? (part * 100) / whole : 0
}

export type RateWindow = {
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

/** A window's counts back from its view, for judging. */
export function countsOf(window: RateWindow): WindowCounts {
  return { sent: window.total, bounces: window.bounces, complaints: window.complaints }
}

export type Windows = { twentyFourHour: RateWindow; sevenDay: RateWindow; allTime: RateWindow }

/** The project's windows over all of its mail, and over each stream's. */
export type ProjectRates = Windows & { marketing: Windows; transactional: Windows }

const windowNames = { day: 'twentyFourHour', week: 'sevenDay', all: 'allTime' } as const
type WindowKey = keyof typeof windowNames
const columns = ['sent', 'bounces', 'complaints', 'marketing_sent', 'marketing_bounces', 'marketing_complaints']

// One aggregate per window and rollup column, named `<window>_<column>`.
function aggregates(): SQL {
  const bound: Record<WindowKey, SQL | undefined> = {
    day: sql`c.hour >= b.day`,
    week: sql`c.hour >= b.week`,
    all: undefined,
  }
  const parts = (Object.keys(windowNames) as WindowKey[]).flatMap((key) =>
    columns.map((column) => {
      const total = bound[key]
        ? sql`sum(c.${sql.identifier(column)}) FILTER (WHERE ${bound[key]})`
        : sql`sum(c.${sql.identifier(column)})`
      // All time may pass int's range in a large project: as float8, exact to 2^53.
      return sql`COALESCE(${total}, 0)::bigint::float8 AS ${sql.identifier(`${key}_${column}`)}`
    }),
  )
  return sql.join(parts, sql`, `)
}

/**
 * 24 h, 7 days and all time from the hourly rollup, for all mail and per stream, in one pass over the project's
 * rows (one per hour with mail: under 9,000 a year). Windows are whole hours: the current hour plus the 23 (or 167)
 * before it.
 */
export async function projectRates(db: Executor, projectId: string): Promise<ProjectRates> {
  const result = await db.execute<Record<string, number>>(sql`
    WITH bounds AS (SELECT date_trunc('hour', now(), 'UTC') - interval '23 hours' AS day,
                           date_trunc('hour', now(), 'UTC') - interval '167 hours' AS week)
    SELECT ${aggregates()}
    FROM bounds b LEFT JOIN reputation_counts c ON c.project_id = ${projectId}
    GROUP BY b.day, b.week`)
  const row = result.rows[0]
  if (!row) throw new Error('rates query returned no row')
  const value = (key: WindowKey, column: string) => Number(row[`${key}_${column}`] ?? 0)
  const windows = (counts: (key: WindowKey) => WindowCounts): Windows => ({
    twentyFourHour: rateWindow(counts('day')),
    sevenDay: rateWindow(counts('week')),
    allTime: rateWindow(counts('all')),
  })
  const all = (key: WindowKey) => ({
    sent: value(key, 'sent'),
    bounces: value(key, 'bounces'),
    complaints: value(key, 'complaints'),
  })
  const marketing = (key: WindowKey) => ({
    sent: value(key, 'marketing_sent'),
    bounces: value(key, 'marketing_bounces'),
    complaints: value(key, 'marketing_complaints'),
  })
  const transactional = (key: WindowKey) => {
    const [total, part] = [all(key), marketing(key)]
    return {
      sent: total.sent - part.sent,
      bounces: total.bounces - part.bounces,
      complaints: total.complaints - part.complaints,
    }
  }
  return { ...windows(all), marketing: windows(marketing), transactional: windows(transactional) }
}
