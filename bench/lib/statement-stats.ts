import { sql } from 'drizzle-orm'
import type { Database } from '../../src/db/client.js'

/** Turns pg_stat_statements on in the embedded cluster: it loads at start, so the server must restart after. */
export async function preloadStatementStats(db: Database): Promise<void> {
  await db.execute(sql`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`)
}

/** Once the cluster has restarted with it loaded: counting from now. */
export async function resetStatementStats(db: Database): Promise<void> {
  await db.execute(sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
  await db.execute(sql`SELECT pg_stat_statements_reset()`)
}

export type StatementStat = {
  calls: number
  totalMs: number
  meanMs: number
  maxMs: number
  rows: number
  query: string
}

/** The statements that took the most of PostgreSQL's time since the reset, the costliest first. */
export async function topStatements(db: Database, count = 12): Promise<StatementStat[]> {
  const result = await db.execute<{
    calls: string
    total: number
    mean: number
    max: number
    rows: string
    query: string
  }>(sql`
    SELECT calls, total_exec_time AS total, mean_exec_time AS mean, max_exec_time AS max, rows,
      regexp_replace(left(query, 200), '[[:space:]]+', ' ', 'g') AS query
    FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
    ORDER BY total_exec_time DESC LIMIT ${count}`)
  return result.rows.map((row) => ({
    calls: Number(row.calls),
    totalMs: Math.round(row.total),
    meanMs: Number(row.mean.toFixed(3)),
    maxMs: Number(row.max.toFixed(3)),
    rows: Number(row.rows),
    query: row.query,
  }))
}
