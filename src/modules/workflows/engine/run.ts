import { and, eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../../context.js'
import type { Transaction } from '../../../db/client.js'
import { workflowExecutions } from '../../../db/schema/index.js'
import { wakeEventDispatcher } from '../../../events/wake.js'
import { wakeOutbox } from '../../delivery/service.js'
import { claimDueExecutions, postponeExecution } from './claim.js'
import { loadDefinition, type WorkflowDefinition } from './definition.js'
import type { StepResult } from './step-context.js'
import { type Execution, executionLeaseEnd, type PendingCall, Walk } from './walk.js'
import { BatchWrites } from './writes.js'

/*
 * Running claimed executions. A batch of them is walked in one transaction holding their rows: every step up
 * to a wait, the end, or a WEBHOOK. The steps' effects (an outbox row, a contact change, events), their history
 * and the executions' new positions commit together, so a worker that dies mid-batch leaves nothing done and
 * the next claim runs the same steps once. The history and the executions' rows are written a few statements
 * per batch, not per execution. A WEBHOOK is the one effect outside PostgreSQL: it is recorded RUNNING and
 * committed before the request, and a claim that finds it still RUNNING fails it rather than call twice
 * (webhooks are never retried, as the spec says).
 */

const interruptedError = 'The worker stopped during the request; webhooks are not retried'

/** Locks an execution whose webhook call this process made, if it is still active and still under that lease. */
async function lockLeased(tx: Transaction, id: string, lease: Date): Promise<Execution | undefined> {
  const [row] = await tx
    .select()
    .from(workflowExecutions)
    .where(and(eq(workflowExecutions.id, id), eq(workflowExecutions.leasedUntil, lease)))
    .for('update')
  return row && (row.status === 'RUNNING' || row.status === 'WAITING') ? row : undefined
}

/** Definitions by workflow, loaded once per batch. */
function definitionCache(tx: Transaction) {
  const cache = new Map<string, Promise<WorkflowDefinition>>()
  return (workflowId: string) => {
    let definition = cache.get(workflowId)
    if (!definition) {
      definition = loadDefinition(tx, workflowId)
      cache.set(workflowId, definition)
    }
    return definition
  }
}

/** Fails the webhook steps a stopped worker left RUNNING; returns the executions they belong to. */
async function failInterruptedCalls(tx: Transaction, executionIds: string[]): Promise<Set<string>> {
  if (executionIds.length === 0) return new Set()
  const result = await tx.execute<{ execution_id: string }>(sql`
    UPDATE workflow_step_executions SET status = 'FAILED', error = ${interruptedError}, completed_at = now(),
      updated_at = now()
    WHERE execution_id = ANY(${sql.param(executionIds)}::uuid[]) AND status = 'RUNNING'
    RETURNING execution_id`)
  return new Set(result.rows.map((row) => row.execution_id))
}

/** Walks claimed executions in their claiming transaction; returns the webhook calls to make once it commits. */
async function advanceBatch(ctx: AppContext, tx: Transaction, executions: readonly Execution[]) {
  const definitionOf = definitionCache(tx)
  const writes = new BatchWrites()
  const interrupted = await failInterruptedCalls(
    tx,
    executions.filter((execution) => execution.status === 'RUNNING').map((execution) => execution.id),
  )
  const calls: PendingCall[] = []
  // One after another: they share the transaction's connection.
  for (const execution of executions) {
    const walk = new Walk(ctx, tx, execution, await definitionOf(execution.workflowId), writes)
    if (interrupted.has(execution.id)) {
      walk.failInterrupted()
      continue
    }
    if (execution.status === 'WAITING') walk.resumeWait()
    const call = await walk.run()
    if (call) calls.push(call)
  }
  await writes.flush(tx, ctx.log)
  return { calls, queuedEmails: writes.queuedEmails }
}

/** After a webhook's answer: record it and go on from there, in a transaction of its own. */
async function finishCall(ctx: AppContext, tx: Transaction, pending: PendingCall, result: StepResult) {
  // Still ours unless cancelled meanwhile (the lease was renewed when the call was recorded).
  const execution = await lockLeased(tx, pending.executionId, pending.lease)
  if (!execution) return undefined
  const writes = new BatchWrites()
  const walk = new Walk(ctx, tx, execution, await loadDefinition(tx, execution.workflowId), writes)
  const next = walk.settle(pending.step, result, pending.stepExecutionId) === 'go' ? await walk.run() : walk.save()
  await writes.flush(tx, ctx.log)
  return { next: next instanceof Date ? undefined : next, queuedEmails: writes.queuedEmails }
}

/** A webhook call, then the rest of its execution, call after call. */
async function runCalls(ctx: AppContext, first: PendingCall): Promise<void> {
  let pending: PendingCall | undefined = first
  while (pending) {
    const call: PendingCall = pending
    const result = await call.call()
    const finished = await ctx.db.transaction((tx) => finishCall(ctx, tx, call, result))
    if (finished?.queuedEmails) wakeOutbox(ctx.pool)
    // Its steps' records (`workflow.*` events, contact changes) go to the bus now.
    if (finished) wakeEventDispatcher(ctx.pool)
    pending = finished?.next
  }
}

const callsInFlight = new WeakMap<AppContext, Set<Promise<void>>>()

/**
 * Webhook calls run beside the loop, so a slow endpoint (up to 10 s) holds up only its own execution; the
 * process waits for them before its database closes.
 */
function startCalls(ctx: AppContext, calls: readonly PendingCall[]): void {
  let running = callsInFlight.get(ctx)
  if (!running) {
    const set = new Set<Promise<void>>()
    callsInFlight.set(ctx, set)
    ctx.onClose(async () => {
      while (set.size > 0) await Promise.all(set)
    })
    running = set
  }
  for (const call of calls) {
    const done: Promise<void> = runCalls(ctx, call)
      .catch((err: unknown) =>
        ctx.log.error({ err, executionId: call.executionId }, 'recording a webhook answer failed'),
      )
      .finally(() => running.delete(done))
    running.add(done)
  }
}

/**
 * Claims up to `limit` due executions and runs them in one transaction; `onClaimed` hears how many it got before
 * they run. Should the batch's transaction fail (a database error in one execution's step), each execution is
 * claimed and run again in a transaction of its own, so one bad execution cannot hold the others back; one that
 * fails alone is postponed by a lease and taken up again when it runs out.
 */
export async function runDueBatch(ctx: AppContext, limit: number, onClaimed: (count: number) => void): Promise<number> {
  let ids: string[] = []
  const calls: PendingCall[] = []
  let queuedEmails = false
  const advanced = (batch: Awaited<ReturnType<typeof advanceBatch>>) => {
    calls.push(...batch.calls)
    queuedEmails ||= batch.queuedEmails
  }
  try {
    advanced(
      await ctx.db.transaction(async (tx) => {
        const executions = await claimDueExecutions(tx, limit)
        ids = executions.map((execution) => execution.id)
        onClaimed(ids.length)
        return advanceBatch(ctx, tx, executions)
      }),
    )
  } catch (err) {
    // A failed claim is the loop's to report; nothing was run.
    if (ids.length === 0) throw err
    ctx.log.warn({ err, executions: ids.length }, 'a batch of workflow executions failed; running them one by one')
    for (const id of ids) {
      try {
        advanced(await ctx.db.transaction(async (tx) => advanceBatch(ctx, tx, await claimDueExecutions(tx, 1, [id]))))
      } catch (failure) {
        ctx.log.error({ err: failure, executionId: id }, 'workflow execution failed; retried when its lease ends')
        await postponeExecution(ctx.db, id, executionLeaseEnd(ctx)).catch((postponing: unknown) =>
          ctx.log.error({ err: postponing, executionId: id }, 'postponing failed'),
        )
      }
    }
  }
  // Committed: the outbox can claim the emails now rather than at its next poll, the bus hand out the steps'
  // events (a run records `workflow.*` events) now rather than at its next poll.
  if (queuedEmails) wakeOutbox(ctx.pool)
  if (ids.length > 0) wakeEventDispatcher(ctx.pool)
  startCalls(ctx, calls)
  return ids.length
}
