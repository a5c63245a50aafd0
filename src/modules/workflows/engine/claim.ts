import { sql } from 'drizzle-orm'
import type { Executor } from '../../../db/client.js'

/** An execution leased to this worker until `leasedUntil`, which also names the claim. */
export type ClaimedExecution = { id: string; leasedUntil: Date }

/**
 * Leases up to `limit` due executions (runnable now, a DELAY over, a wait ended or timed out), earliest first,
 * by the due-time index. SKIP LOCKED lets any number of workers claim side by side; a lease that runs out (the
 * worker died) makes the execution due again for another one. The lease is a millisecond instant made here,
 * so it compares exactly when it comes back from PostgreSQL.
 */
export async function claimDueExecutions(db: Executor, limit: number, leaseMs: number): Promise<ClaimedExecution[]> {
  const leasedUntil = new Date(Date.now() + leaseMs)
  const result = await db.execute<{ id: string }>(sql`
    UPDATE workflow_executions AS x SET leased_until = ${leasedUntil.toISOString()}::timestamptz
    WHERE x.id IN (
      SELECT id FROM workflow_executions
      WHERE due_at <= now() AND status IN ('RUNNING', 'WAITING') AND (leased_until IS NULL OR leased_until < now())
      ORDER BY due_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING x.id`)
  return result.rows.map((row) => ({ id: row.id, leasedUntil }))
}
