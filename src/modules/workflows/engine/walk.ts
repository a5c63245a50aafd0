import { and, eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../../context.js'
import type { Transaction } from '../../../db/client.js'
import { contacts, type workflowExecutions } from '../../../db/schema/index.js'
import { newTimeOrderedUuid } from '../../../db/time-ordered-uuid.js'
import type { EventInput } from '../../../events/bus.js'
import { workflowEventNames } from '../../../events/names.js'
import { nextStep, type StepOutcome, type StepRow, type WorkflowDefinition } from './definition.js'
import type { ExecutionContact, StepContext, StepOutput, StepResult } from './step-context.js'
import { delayEnded } from './step-runners/delay.js'
import { runStep } from './step-runners/index.js'
import { waitForEventEnded } from './step-runners/wait-for-event.js'
import type { BatchWrites, StepExecutionInsert } from './writes.js'

/**
 * Until when a claim holds an execution: WORKFLOW_EXECUTION_LEASE_SECONDS (default 30 s, three times a webhook's
 * 10 s) from now; renewed at every transaction.
 */
export function executionLeaseEnd(ctx: Pick<AppContext, 'config'>): Date {
  return new Date(Date.now() + ctx.config.crashRecovery.workflowExecutionLeaseSeconds * 1_000)
}

export type Execution = typeof workflowExecutions.$inferSelect
type ExecutionChanges = Partial<
  Pick<
    Execution,
    'status' | 'currentStepId' | 'dueAt' | 'waitingFor' | 'waitingSince' | 'waitOutcome' | 'exitReason' | 'completedAt'
  >
>

/** A webhook step recorded as RUNNING; its request happens after the batch commits, outside any transaction. */
export type PendingCall = {
  executionId: string
  stepExecutionId: string
  step: StepRow
  lease: Date
  call: () => Promise<StepResult>
}

/** The execution's state while one transaction walks it, written back once by `save`. */
export class Walk {
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
    private readonly definition: WorkflowDefinition,
    private readonly writes: BatchWrites,
  ) {
    this.current = execution.currentStepId ? definition.steps.get(execution.currentStepId) : undefined
    this.context = execution.context
  }

  private scope(): StepContext {
    return {
      ctx: this.ctx,
      tx: this.tx,
      projectId: this.execution.projectId,
      workflow: this.definition.workflow,
      execution: {
        id: this.execution.id,
        contactId: this.execution.contactId,
        startedAt: this.execution.startedAt,
        triggerKind: this.execution.triggerKind,
        context: this.context,
      },
      contact: () => {
        this.contactCache ??= this.loadContact()
        return this.contactCache
      },
      contactChanged: ({ data }) => {
        this.contactCache = undefined
        if (data) this.writes.reevaluateSegments(this.execution.projectId, this.execution.contactId)
      },
      emailQueued: () => {
        this.writes.queuedEmails = true
      },
      executionStarted: () => {
        this.started = true
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
  resumeWait(): void {
    const step = this.current
    this.changes.status = 'RUNNING'
    this.changes.waitingFor = null
    this.changes.waitingSince = null
    this.changes.waitOutcome = null
    if (!step) {
      this.finish('FAILED', 'The step the execution waited at was deleted')
      return
    }
    const { output, outcome } = step.type === 'WAIT_FOR_EVENT' ? waitForEventEnded(this.execution) : delayEnded()
    this.writes.endWait({ executionId: this.execution.id, stepId: step.id, output })
    this.moveOn(step, outcome)
  }

  /** A WEBHOOK left RUNNING by a worker that stopped mid-request (its step was failed): the run fails too. */
  failInterrupted(): void {
    this.finish('FAILED', 'The worker stopped during a webhook request')
    this.save()
  }

  /** Runs steps until the execution waits, ends, or reaches a webhook; saves and returns that call, if any. */
  async run(): Promise<PendingCall | undefined> {
    while (this.changes.status === undefined || this.changes.status === 'RUNNING') {
      const step = this.current
      if (!step) break
      const result = await runStep(step, this.scope())
      if (result.kind === 'call') {
        const stepExecutionId = this.record(step, 'RUNNING', result.output)
        const lease = this.save()
        if (!lease) throw new Error('a pending webhook call keeps its lease')
        return { executionId: this.execution.id, stepExecutionId, step, lease, call: result.call }
      }
      if (this.settle(step, result) === 'stop') break
    }
    this.save()
    return undefined
  }

  /** Records a step's result and moves the execution accordingly; 'stop' when it no longer runs. */
  settle(step: StepRow, result: StepResult, stepExecutionId?: string): 'go' | 'stop' {
    const record = (
      status: 'COMPLETED' | 'FAILED' | 'WAITING',
      output?: StepOutput,
      error?: string,
      executeAfter?: Date | null,
    ) => {
      if (stepExecutionId === undefined) return void this.record(step, status, output, error, executeAfter)
      // A webhook's step is stored already (RUNNING) and ends COMPLETED or FAILED.
      if (status === 'WAITING') throw new Error('a webhook step does not wait')
      this.writes.updateStep({ id: stepExecutionId, status, output: output ?? null, error: error ?? null })
    }
    switch (result.kind) {
      case 'next':
        record('COMPLETED', result.output)
        this.moveOn(step, result.outcome ?? {})
        return this.changes.status === 'COMPLETED' ? 'stop' : 'go'
      case 'wait':
        record('WAITING', result.output, undefined, result.dueAt)
        this.changes.status = 'WAITING'
        this.changes.dueAt = result.dueAt
        this.changes.waitingFor = result.waitingFor ?? null
        this.changes.waitingSince = result.waitingFor ? new Date() : null
        this.changes.waitOutcome = null
        return 'stop'
      case 'exit':
        record('COMPLETED', result.output)
        this.finish('EXITED', result.reason)
        return 'stop'
      case 'fail':
        record('FAILED', result.output, result.error)
        this.finish('FAILED', result.error)
        return 'stop'
      case 'call':
        throw new Error('a webhook result is itself a call')
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
      data: {
        workflowId: this.definition.workflow.id,
        workflowName: this.definition.workflow.name,
        executionId: this.execution.id,
      },
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
    const id = newTimeOrderedUuid()
    const finished = status === 'COMPLETED' || status === 'FAILED'
    this.writes.addHistory({
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
   * Hands the stretch's result to the batch's writes: the execution's new row, its history and feed events. The
   * lease is released, or renewed (and returned) while a webhook call is pending.
   */
  save(): Date | undefined {
    this.writes.addEvents(this.activity())
    const running = this.changes.status === undefined || this.changes.status === 'RUNNING'
    const lease = running && this.current?.type === 'WEBHOOK' ? executionLeaseEnd(this.ctx) : undefined
    const { execution, changes } = this
    this.writes.saveExecution({
      id: execution.id,
      status: changes.status ?? execution.status,
      currentStepId: changes.currentStepId === undefined ? execution.currentStepId : changes.currentStepId,
      context: this.context,
      dueAt: changes.dueAt === undefined ? execution.dueAt : changes.dueAt,
      leasedUntil: lease ?? null,
      waitingFor: changes.waitingFor === undefined ? execution.waitingFor : changes.waitingFor,
      waitingSince: changes.waitingSince === undefined ? execution.waitingSince : changes.waitingSince,
      waitOutcome: changes.waitOutcome === undefined ? execution.waitOutcome : changes.waitOutcome,
      exitReason: changes.exitReason === undefined ? execution.exitReason : changes.exitReason,
      completedAt: changes.completedAt === undefined ? execution.completedAt : changes.completedAt,
    })
    return lease
  }
}
