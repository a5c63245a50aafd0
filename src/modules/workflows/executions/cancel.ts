import { sql } from 'drizzle-orm'
import type { Executor } from '../../../db/client.js'
import { AppError, notFound } from '../../../errors.js'
import { findProjectWorkflow } from './queries.js'

const cancelledReason = 'Cancelled by user'

/**
 * Cancels the workflow's active executions (all, or one): CANCELLED, no longer due, their lease dropped so a
 * worker in the middle of one stops at its next transaction, and their open step (a DELAY, a wait) SKIPPED.
 * One statement; a worker's transaction holding a row finishes first (row lock), then the cancel applies.
 */
async function cancelActive(db: Executor, workflowId: string, executionId?: string) {
  const result = await db.execute<{ id: string }>(sql`
    WITH cancelled AS (
      UPDATE workflow_executions
      SET status = 'CANCELLED', exit_reason = ${cancelledReason}, completed_at = now(), due_at = NULL,
          leased_until = NULL, waiting_for = NULL, updated_at = now()
      WHERE workflow_id = ${workflowId} AND status IN ('RUNNING', 'WAITING')
        ${executionId ? sql`AND id = ${executionId}` : sql``}
      RETURNING id
    ),
    skipped AS (
      UPDATE workflow_step_executions SET status = 'SKIPPED', completed_at = now(), updated_at = now()
      WHERE execution_id IN (SELECT id FROM cancelled) AND status IN ('WAITING', 'RUNNING', 'PENDING', 'SCHEDULED')
    )
    SELECT id FROM cancelled`)
  return result.rows.length
}

/** `DELETE /workflows/:id/executions/:executionId`: only a RUNNING or WAITING one (409 otherwise). */
export async function cancelExecution(db: Executor, projectId: string, workflowId: string, executionId: string) {
  await findProjectWorkflow(db, projectId, workflowId)
  if ((await cancelActive(db, workflowId, executionId)) === 1) return
  const exists = await db.execute<{ status: string }>(sql`
    SELECT status FROM workflow_executions WHERE id = ${executionId} AND workflow_id = ${workflowId}`)
  const status = exists.rows[0]?.status
  if (!status) throw notFound('Execution')
  throw new AppError('CONFLICT', `The execution is ${status}; only running or waiting executions can be cancelled`)
}

/** `POST /workflows/:id/executions/cancel-all`. */
export async function cancelAllExecutions(db: Executor, projectId: string, workflowId: string) {
  await findProjectWorkflow(db, projectId, workflowId)
  return { cancelled: await cancelActive(db, workflowId) }
}
