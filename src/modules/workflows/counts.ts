import { inArray, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { workflowExecutionCounts } from '../../db/schema/index.js'

const statuses = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const
export type ExecutionCounts = Record<(typeof statuses)[number], number>

const zero = (): ExecutionCounts => ({ RUNNING: 0, WAITING: 0, COMPLETED: 0, EXITED: 0, FAILED: 0, CANCELLED: 0 })

/** Each workflow's executions by status, summed from the appended changes (a handful of rows per workflow). */
export async function loadExecutionCounts(
  db: Executor,
  workflowIds: readonly string[],
): Promise<Map<string, ExecutionCounts>> {
  const counts = new Map(workflowIds.map((id) => [id, zero()]))
  if (workflowIds.length === 0) return counts
  const rows = await db
    .select({
      workflowId: workflowExecutionCounts.workflowId,
      status: workflowExecutionCounts.status,
      count: sql<number>`sum(${workflowExecutionCounts.count})::int`,
    })
    .from(workflowExecutionCounts)
    .where(inArray(workflowExecutionCounts.workflowId, [...workflowIds]))
    .groupBy(workflowExecutionCounts.workflowId, workflowExecutionCounts.status)
  for (const row of rows) {
    const entry = counts.get(row.workflowId)
    if (entry) entry[row.status] = row.count
  }
  return counts
}

export async function loadWorkflowCounts(db: Executor, workflowId: string): Promise<ExecutionCounts> {
  return (await loadExecutionCounts(db, [workflowId])).get(workflowId) ?? zero()
}

export const totalExecutions = (counts: ExecutionCounts) => statuses.reduce((sum, status) => sum + counts[status], 0)
export const activeExecutions = (counts: ExecutionCounts) => counts.RUNNING + counts.WAITING

/**
 * Folds each workflow's appended changes into one row per status, in one statement: the rows it deletes are
 * the ones it sums, so changes appended meanwhile stay as they are and nothing is counted twice or lost.
 */
export async function compactExecutionCounts(db: Executor): Promise<number> {
  const result = await db.execute<{ n: number }>(sql`
    WITH many AS (
      SELECT workflow_id FROM workflow_execution_counts GROUP BY workflow_id HAVING count(*) > 6
    ),
    folded AS (
      DELETE FROM workflow_execution_counts WHERE workflow_id IN (SELECT workflow_id FROM many)
      RETURNING workflow_id, status, count
    ),
    written AS (
      INSERT INTO workflow_execution_counts (workflow_id, status, count)
      SELECT workflow_id, status, sum(count) FROM folded GROUP BY workflow_id, status HAVING sum(count) <> 0
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM folded`)
  return result.rows[0]?.n ?? 0
}
