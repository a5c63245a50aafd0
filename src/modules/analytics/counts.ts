import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { ceilTo, floorTo } from './period.js'
import { uniqueEventSql } from './rollup-sql.js'

export type NameCount = { name: string; count: number; uniqueCount: number }

/**
 * Exact event counts per name in `[from, to)`. The whole hours inside the range come from the hourly rollup;
 * the partial hours at its ends (less than an hour each) are counted from `events` through its
 * (project_id, created_at) index. So any range costs at most two hours of raw rows plus one rollup row per
 * name and hour. Events the dispatcher has not handed out yet (well under a second old) are not in the
 * rollup yet.
 */
export async function countEventsByName(db: Executor, projectId: string, from: Date, to: Date): Promise<NameCount[]> {
  const firstHour = ceilTo(from, 'hour')
  const lastHour = floorTo(to, 'hour')
  const hasWholeHours = firstHour.getTime() < lastHour.getTime()
  // Without a whole hour inside, the raw part is the entire range.
  const rawRanges = hasWholeHours
    ? sql`(e.created_at >= ${from} AND e.created_at < ${firstHour}) OR (e.created_at >= ${lastHour} AND e.created_at < ${to})`
    : sql`e.created_at >= ${from} AND e.created_at < ${to}`
  const rollup = hasWholeHours
    ? sql`SELECT name, count, unique_count FROM event_counts_hourly
        WHERE project_id = ${projectId} AND hour >= ${firstHour} AND hour < ${lastHour}
        UNION ALL`
    : sql``
  const result = await db.execute<{ name: string; count: string; unique_count: string }>(sql`
    SELECT name, sum(count) AS count, sum(unique_count) AS unique_count FROM (
      ${rollup}
      SELECT e.name, count(*) AS count, count(*) FILTER (WHERE ${uniqueEventSql}) AS unique_count
      FROM events e WHERE e.project_id = ${projectId} AND (${rawRanges})
      GROUP BY e.name
    ) counted
    GROUP BY name`)
  return result.rows.map((row) => ({ name: row.name, count: Number(row.count), uniqueCount: Number(row.unique_count) }))
}
