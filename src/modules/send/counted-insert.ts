import { sql } from 'drizzle-orm'
import { buildStatement } from '../../db/built-statement.js'
import type { Executor } from '../../db/client.js'
import { randomUsageShard, uncappedUsageCtes } from '../billing/usage.js'
import { type EmailInsert, emailRowsOf, insertEmailsFrom } from '../delivery/sql.js'

type CappedRow = { project_id: string }

/**
 * The outbox insert of `/v1/send` with its count toward the monthly transactional cap in the same statement, for
 * the projects without a cap (most of them): no statement of its own per transaction for billing. Built once and
 * named (built-statement.ts): its only values are the rows (one jsonb, whose stream and project decide each row's
 * hold and tracking in SQL) and the usage shard.
 */
const insertCounted = buildStatement<{ rows: string; shard: number }>(
  'send-insert-counted',
  sql`
    WITH v AS MATERIALIZED (SELECT * FROM ${emailRowsOf(sql`${sql.placeholder('rows')}`)}),
    inserted AS (${insertEmailsFrom(sql`v`)}),
    ${uncappedUsageCtes('transactional', sql`SELECT v."projectId" AS project_id, count(*) AS n FROM v GROUP BY 1`, sql`${sql.placeholder('shard')}::smallint`)}
    SELECT project_id FROM capped`,
)

/**
 * An `InsertEmails` that stores the rows and counts them for their uncapped projects; the projects that have a
 * transactional cap are added to `capped`, for the caller to count with `addUsage` before its commit.
 */
export function insertCountingInto(capped: Set<string>) {
  return async (db: Executor, rows: EmailInsert[]): Promise<void> => {
    const result = await insertCounted<CappedRow>(db, { rows: JSON.stringify(rows), shard: randomUsageShard() })
    for (const row of result.rows) capped.add(row.project_id)
  }
}
