import { and, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm'
import type { Executor, Transaction } from '../../../db/client.js'
import { workflowExecutions } from '../../../db/schema/index.js'
import type { Execution } from './walk.js'

const isDue = and(
  lte(workflowExecutions.dueAt, sql`now()`),
  inArray(workflowExecutions.status, ['RUNNING', 'WAITING']),
  or(isNull(workflowExecutions.leasedUntil), lt(workflowExecutions.leasedUntil, sql`now()`)),
)

/**
 * Locks up to `limit` due executions (runnable now, a DELAY over, a wait ended or timed out), earliest first, by
 * the due-time index, for the transaction that runs them: its row locks are the claim, so a worker that dies
 * releases them with its connection and writes nothing to claim. SKIP LOCKED lets any number of workers claim
 * side by side. Executions leased outside a transaction (a webhook call in flight, a failed one backing off)
 * wait for their lease to run out. `ids` narrows the claim to those executions.
 */
export async function claimDueExecutions(
  tx: Transaction,
  limit: number,
  ids?: readonly string[],
): Promise<Execution[]> {
  const x = workflowExecutions
  return tx
    .select()
    .from(x)
    .where(and(isDue, ids ? inArray(x.id, [...ids]) : undefined))
    .orderBy(x.dueAt)
    .limit(limit)
    .for('update', { skipLocked: true })
}

/**
 * Whether any execution is due, in one statement without a transaction or locks: an idle loop asks this instead
 * of opening a claim's transaction (three round trips) every tick.
 */
export async function anyExecutionDue(db: Executor): Promise<boolean> {
  const [row] = await db.select({ id: workflowExecutions.id }).from(workflowExecutions).where(isDue).limit(1)
  return row !== undefined
}

/** Keeps a failing execution out of the claims until `until`, so it does not spin; it is tried again then. */
export async function postponeExecution(db: Executor, id: string, until: Date): Promise<void> {
  await db.update(workflowExecutions).set({ leasedUntil: until }).where(eq(workflowExecutions.id, id))
}
