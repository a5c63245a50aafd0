import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Transaction } from '../../db/client.js'
import { workflowExecutions, workflowSteps } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { activeExecutions, loadWorkflowCounts } from './counts.js'
import type { WorkflowRow } from './views.js'

const activeStatuses = ['RUNNING', 'WAITING'] as const

/**
 * 409 when a RUNNING or WAITING execution stands on the step: removing it (or its way out) would strand the
 * execution. The step row is locked FOR UPDATE first, so an execution being moved onto it by a transaction not yet
 * committed (whose key check holds the row) is waited for and then counted, and a later move waits for this commit.
 */
export async function assertNoExecutionOnStep(
  tx: Transaction,
  workflow: WorkflowRow,
  step: { id: string; name: string },
  change: string,
): Promise<void> {
  await tx.select({ id: workflowSteps.id }).from(workflowSteps).where(eq(workflowSteps.id, step.id)).for('update')
  const [row] = await tx
    .select({ count: sql<number>`count(*)::int` })
    .from(workflowExecutions)
    .where(
      and(
        eq(workflowExecutions.workflowId, workflow.id),
        eq(workflowExecutions.currentStepId, step.id),
        inArray(workflowExecutions.status, activeStatuses),
      ),
    )
  const count = row?.count ?? 0
  if (count === 0) return
  throw new AppError(
    'CONFLICT',
    `Cannot ${change} while ${count} execution(s) are on step "${step.name}". Cancel them or wait for them to move on.`,
    { details: { stepId: step.id, activeExecutions: count } },
  )
}

/** 409 for a change that running executions must not see (Plunk's rule): the workflow is enabled and has any. */
export async function assertNoActiveRuns(
  tx: Transaction,
  workflow: WorkflowRow,
  change: string,
  allowed: string,
): Promise<void> {
  if (!workflow.enabled) return
  // None can start while the workflow row is locked (an execution's insert checks its key against it).
  const count = activeExecutions(await loadWorkflowCounts(tx, workflow.id))
  if (count === 0) return
  throw new AppError(
    'CONFLICT',
    `Cannot ${change} while the workflow has ${count} active execution(s). Disable the workflow first or wait for ` +
      `them to complete. You can still update ${allowed}.`,
    { details: { activeExecutions: count } },
  )
}
