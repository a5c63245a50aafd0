import { and, eq, sql } from 'drizzle-orm'
import type { PgInsertValue } from 'drizzle-orm/pg-core'
import type { AppContext } from '../../../context.js'
import type { Transaction } from '../../../db/client.js'
import { contacts, workflowExecutions, workflowStepExecutions, workflows } from '../../../db/schema/index.js'
import { type EventInput, publishEvents } from '../../events/bus.js'
import { workflowEventNames } from '../../events/names.js'
import { delayConfig, delayMinutes, exitConfig, waitForEventConfig } from '../steps/config.js'
import type { ClaimedExecution } from './claim.js'
import { loadDefinition, nextStep, type StepOutcome, type StepRow, type WorkflowDefinition } from './definition.js'
import type { ExecutionContact, StepContext, StepOutput, StepResult } from './step-context.js'
import { runCondition } from './steps/condition.js'
import { runSendEmail } from './steps/send-email.js'
import { runUpdateContact } from './steps/update-contact.js'
import { runWebhook } from './steps/webhook.js'

/** How long a claim holds an execution: three times a webhook's 10 s; renewed at every transaction. */
export const executionLeaseMs = 30_000

type Execution = typeof workflowExecutions.$inferSelect
type StepExecutionInsert = PgInsertValue<typeof workflowStepExecutions>
type ExecutionChanges = Partial<
  Pick<
    Execution,
    | 'status'
    | 'currentStepId'
    | 'context'
    | 'dueAt'
    | 'waitingFor'
    | 'waitingSince'
    | 'waitOutcome'
    | 'exitReason'
    | 'completedAt'
  >
>

/** A webhook step recorded as RUNNING and committed; its request happens outside any transaction. */
type PendingCall = { stepExecutionId: string; step: StepRow; lease: Date; call: () => Promise<StepResult> }

/**
 * Runs a claimed execution as far as it goes now: every step up to a wait, the end, or a WEBHOOK. Each stretch of
 * steps is one transaction holding the execution's row: the steps' effects (an email in the outbox, a contact
 * change, events), their history and the execution's new position commit together, so a worker that dies
 * mid-stretch leaves nothing done and the next claim runs the same steps once. A WEBHOOK is the one effect
 * outside PostgreSQL: it is recorded RUNNING and committed before the request, and a claim that finds it still
 * RUNNING fails it rather than call twice (webhooks are never retried, as the spec says).
 */
export async function runExecution(ctx: AppContext, claim: ClaimedExecution): Promise<void> {
  let pending = await ctx.db.transaction((tx) => advance(ctx, tx, claim.id, claim.leasedUntil))
  while (pending) {
    const call = pending
    const result = await call.call()
    pending = await ctx.db.transaction((tx) => finishCall(ctx, tx, claim.id, call, result))
  }
}

async function lockClaimed(tx: Transaction, id: string, lease: Date): Promise<Execution | undefined> {
  const [execution] = await tx
    .select()
    .from(workflowExecutions)
    .where(and(eq(workflowExecutions.id, id), eq(workflowExecutions.leasedUntil, lease)))
    .for('update')
  return execution?.status === 'RUNNING' || execution?.status === 'WAITING' ? execution : undefined
}

/** One transaction's stretch of steps; returns the webhook call to make next, if the stretch stopped at one. */
async function advance(ctx: AppContext, tx: Transaction, id: string, lease: Date): Promise<PendingCall | undefined> {
  const execution = await lockClaimed(tx, id, lease)
  if (!execution) return undefined
  const walk = await startWalk(ctx, tx, execution)
  if (execution.status === 'WAITING') {
    await walk.resumeWait()
  } else if (await walk.interruptedCall()) {
    await walk.save()
    return undefined
  }
  return walk.run()
}

/** After a webhook's answer: record it and go on from there in the same transaction. */
async function finishCall(
  ctx: AppContext,
  tx: Transaction,
  id: string,
  pending: PendingCall,
  result: StepResult,
): Promise<PendingCall | undefined> {
  // Still ours unless cancelled meanwhile (the lease was renewed when the call was recorded).
  const execution = await lockClaimed(tx, id, pending.lease)
  if (!execution) return undefined
  const walk = await startWalk(ctx, tx, execution)
  if ((await walk.settle(pending.step, result, pending.stepExecutionId)) === 'stop') {
    await walk.save()
    return undefined
  }
  return walk.run()
}

async function startWalk(ctx: AppContext, tx: Transaction, execution: Execution) {
  const [workflow] = await tx
    .select({ id: workflows.id, name: workflows.name })
    .from(workflows)
    .where(eq(workflows.id, execution.workflowId))
  const definition = await loadDefinition(tx, execution.workflowId)
  return new Walk(ctx, tx, execution, workflow ?? { id: execution.workflowId, name: '' }, definition)
}

/** The execution's state while one transaction walks it, written back once by `save`. */
class Walk {
  private readonly history: StepExecutionInsert[] = []
  private readonly changes: ExecutionChanges = {}
  private contactCache: Promise<ExecutionContact> | undefined
  /** Whether this stretch ran the TRIGGER step: the execution's start, for the activity feed. */
  private started = false
  private current: StepRow | undefined
  private readonly context: Record<string, unknown>

  constructor(
    private readonly ctx: AppContext,
    private readonly tx: Transaction,
    private readonly execution: Execution,
    private readonly workflow: { id: string; name: string },
    private readonly definition: WorkflowDefinition,
  ) {
    this.current = execution.currentStepId ? definition.steps.get(execution.currentStepId) : undefined
    this.context = execution.context
  }

  private scope(): StepContext {
    return {
      ctx: this.ctx,
      tx: this.tx,
      projectId: this.execution.projectId,
      workflow: this.workflow,
      execution: {
        id: this.execution.id,
        startedAt: this.execution.startedAt,
        triggerKind: this.execution.triggerKind,
        context: this.context,
      },
      contact: () => {
        this.contactCache ??= this.loadContact()
        return this.contactCache
      },
      forgetContact: () => {
        this.contactCache = undefined
      },
    }
  }

  private async loadContact(): Promise<ExecutionContact> {
    const [contact] = await this.tx
      .select({ id: contacts.id, email: contacts.email, subscribed: contacts.subscribed, data: contacts.data })
      .from(contacts)
      .where(and(eq(contacts.id, this.execution.contactId), eq(contacts.projectId, this.execution.projectId)))
    // The foreign key deletes executions with their contact, and this transaction holds the execution's row.
    if (!contact) throw new Error(`contact ${this.execution.contactId} of execution ${this.execution.id} is gone`)
    return contact
  }

  /** A DELAY that is over, or a WAIT_FOR_EVENT ended by its event or its timeout: complete it and move on. */
  async resumeWait(): Promise<void> {
    const step = this.current
    this.changes.status = 'RUNNING'
    this.changes.waitingFor = null
    this.changes.waitingSince = null
    this.changes.waitOutcome = null
    if (!step) return this.fail(undefined, 'The step the execution waited at was deleted')
    let output: StepOutput
    let outcome: StepOutcome = {}
    if (step.type === 'WAIT_FOR_EVENT') {
      const eventName = this.execution.waitingFor
      const waitOutcome = this.execution.waitOutcome ?? 'TIMEOUT'
      outcome = { waitOutcome }
      output =
        waitOutcome === 'EVENT'
          ? { waitOutcome, eventReceived: true, eventName, receivedAt: new Date().toISOString() }
          : { waitOutcome, timedOut: true, eventName }
    } else {
      output = { resumedAt: new Date().toISOString() }
    }
    await this.tx
      .update(workflowStepExecutions)
      .set({
        status: 'COMPLETED',
        output: sql`coalesce(output, '{}'::jsonb) || ${JSON.stringify(output)}::jsonb`,
        completedAt: sql`now()`,
      })
      .where(
        and(
          eq(workflowStepExecutions.executionId, this.execution.id),
          eq(workflowStepExecutions.stepId, step.id),
          eq(workflowStepExecutions.status, 'WAITING'),
        ),
      )
    this.moveOn(step, outcome)
  }

  /** A WEBHOOK left RUNNING by a worker that stopped mid-request: failed, never called a second time. */
  async interruptedCall(): Promise<boolean> {
    const result = await this.tx
      .update(workflowStepExecutions)
      .set({
        status: 'FAILED',
        error: 'The worker stopped during the request; webhooks are not retried',
        completedAt: sql`now()`,
      })
      .where(
        and(eq(workflowStepExecutions.executionId, this.execution.id), eq(workflowStepExecutions.status, 'RUNNING')),
      )
      .returning({ id: workflowStepExecutions.id })
    if (result.length === 0) return false
    this.finish('FAILED', 'The worker stopped during a webhook request')
    return true
  }

  /** Runs steps until the execution waits, ends, or reaches a webhook; saves and returns that call, if any. */
  async run(): Promise<PendingCall | undefined> {
    while (this.changes.status === undefined || this.changes.status === 'RUNNING') {
      const step = this.current
      if (!step) break
      const result = await this.runStep(step)
      if (result.kind === 'call') {
        const stepExecutionId = this.record(step, 'RUNNING', result.output)
        const lease = await this.save()
        if (!lease) throw new Error('a pending webhook call keeps its lease')
        return { stepExecutionId, step, lease, call: result.call }
      }
      if ((await this.settle(step, result)) === 'stop') break
    }
    await this.save()
    return undefined
  }

  /** Records a step's result and moves the execution accordingly; 'stop' when it no longer runs. */
  async settle(step: StepRow, result: StepResult, stepExecutionId?: string): Promise<'go' | 'stop'> {
    const record = async (
      status: 'COMPLETED' | 'FAILED' | 'WAITING',
      output?: StepOutput,
      error?: string,
      executeAfter?: Date | null,
    ) => {
      if (stepExecutionId === undefined) return void this.record(step, status, output, error, executeAfter)
      await this.tx
        .update(workflowStepExecutions)
        .set({ status, output, error, completedAt: sql`now()` })
        .where(eq(workflowStepExecutions.id, stepExecutionId))
    }
    switch (result.kind) {
      case 'next':
        await record('COMPLETED', result.output)
        this.moveOn(step, result.outcome ?? {})
        return this.changes.status === 'COMPLETED' ? 'stop' : 'go'
      case 'wait':
        await record('WAITING', result.output, undefined, result.dueAt)
        this.changes.status = 'WAITING'
        this.changes.dueAt = result.dueAt
        this.changes.waitingFor = result.waitingFor ?? null
        this.changes.waitingSince = result.waitingFor ? new Date() : null
        this.changes.waitOutcome = null
        return 'stop'
      case 'exit':
        await record('COMPLETED', result.output)
        this.finish('EXITED', result.reason)
        return 'stop'
      case 'fail':
        await record('FAILED', result.output, result.error)
        this.finish('FAILED', result.error)
        return 'stop'
      case 'call':
        throw new Error('a webhook result is itself a call')
    }
  }

  private async runStep(step: StepRow): Promise<StepResult> {
    const scope = this.scope()
    switch (step.type) {
      case 'TRIGGER':
        this.started = true
        return {
          kind: 'next',
          output: { triggered: true, eventName: step.config.eventName ?? null, timestamp: new Date().toISOString() },
        }
      case 'SEND_EMAIL':
        return runSendEmail(step, scope)
      case 'DELAY': {
        const delay = delayConfig.parse(step.config)
        const resumeAt = new Date(Date.now() + delayMinutes(delay) * 60_000)
        return {
          kind: 'wait',
          output: { delayAmount: delay.amount, delayUnit: delay.unit, resumeAt: resumeAt.toISOString(), queued: true },
          dueAt: resumeAt,
        }
      }
      case 'WAIT_FOR_EVENT': {
        const wait = waitForEventConfig.parse(step.config)
        const timeoutAt = wait.timeout === undefined ? null : new Date(Date.now() + wait.timeout * 1000)
        return {
          kind: 'wait',
          output: { eventName: wait.eventName, timeoutAt: timeoutAt?.toISOString() ?? null },
          dueAt: timeoutAt,
          waitingFor: wait.eventName,
        }
      }
      case 'CONDITION':
        return runCondition(step, scope)
      case 'WEBHOOK':
        return runWebhook(step, scope)
      case 'UPDATE_CONTACT':
        return runUpdateContact(step, scope)
      case 'EXIT': {
        const { reason } = exitConfig.parse(step.config)
        return { kind: 'exit', output: { exited: true, reason }, reason }
      }
    }
  }

  private moveOn(step: StepRow, outcome: StepOutcome): void {
    const next = nextStep(this.definition, step.id, outcome)
    this.current = next
    this.changes.currentStepId = next?.id ?? null
    if (next) {
      this.changes.status = 'RUNNING'
      this.changes.dueAt = new Date()
    } else {
      this.finish('COMPLETED', null)
    }
  }

  private fail(step: StepRow | undefined, error: string): void {
    if (step) this.record(step, 'FAILED', undefined, error)
    this.finish('FAILED', error)
  }

  private finish(status: 'COMPLETED' | 'EXITED' | 'FAILED', reason: string | null): void {
    this.changes.status = status
    this.changes.exitReason = reason
    this.changes.completedAt = new Date()
    this.changes.dueAt = null
    this.changes.waitingFor = null
  }

  /** The feed's records of this stretch: `workflow.started`, and how it ended. */
  private activity() {
    const { status, exitReason } = this.changes
    const base = {
      projectId: this.execution.projectId,
      contactId: this.execution.contactId,
      data: { workflowId: this.workflow.id, workflowName: this.workflow.name, executionId: this.execution.id },
    }
    const events: EventInput[] = this.started ? [{ ...base, name: workflowEventNames.started }] : []
    if (status === 'COMPLETED' || status === 'EXITED' || status === 'FAILED') {
      events.push({
        ...base,
        name: status === 'FAILED' ? workflowEventNames.failed : workflowEventNames.completed,
        data: { ...base.data, status, reason: exitReason ?? null },
      })
    }
    this.started = false
    return events
  }

  private record(
    step: StepRow,
    status: StepExecutionInsert['status'],
    output?: StepOutput,
    error?: string,
    executeAfter?: Date | null,
  ): string {
    const id = crypto.randomUUID()
    const finished = status === 'COMPLETED' || status === 'FAILED'
    this.history.push({
      id,
      executionId: this.execution.id,
      stepId: step.id,
      stepType: step.type,
      stepName: step.name,
      status,
      output: output ?? null,
      error: error ?? null,
      executeAfter: executeAfter ?? null,
      startedAt: sql`now()`,
      completedAt: finished ? sql`now()` : null,
      // One insert holds a stretch of steps: clock_timestamp() keeps them in the order they ran.
      createdAt: sql`clock_timestamp()`,
    })
    return id
  }

  /**
   * Writes the stretch: the history in one insert, the execution in one update. The lease is released, or
   * renewed (and returned) while a webhook call is pending.
   */
  async save(): Promise<Date | undefined> {
    if (this.history.length > 0) await this.tx.insert(workflowStepExecutions).values(this.history.splice(0))
    await publishEvents(this.tx, this.activity())
    const running = this.changes.status === undefined || this.changes.status === 'RUNNING'
    const lease = running && this.current?.type === 'WEBHOOK' ? new Date(Date.now() + executionLeaseMs) : undefined
    await this.tx
      .update(workflowExecutions)
      .set({ ...this.changes, context: this.context, leasedUntil: lease ?? null })
      .where(eq(workflowExecutions.id, this.execution.id))
    return lease
  }
}
