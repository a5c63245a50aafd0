import { sql } from 'drizzle-orm'
import type { PgInsertValue } from 'drizzle-orm/pg-core'
import type { Transaction } from '../../../db/client.js'
import { type workflowExecutions, workflowStepExecutions } from '../../../db/schema/index.js'
import { type EventInput, publishEvents } from '../../../events/bus.js'
import type { Logger } from '../../../logger.js'
import { reevaluateContacts } from '../../segments/membership.js'

type Execution = typeof workflowExecutions.$inferSelect
export type StepExecutionInsert = PgInsertValue<typeof workflowStepExecutions>
type StepOutput = Record<string, unknown>

/** An execution's row as a stretch leaves it. */
export type ExecutionState = Pick<
  Execution,
  | 'id'
  | 'status'
  | 'currentStepId'
  | 'context'
  | 'dueAt'
  | 'leasedUntil'
  | 'waitingFor'
  | 'waitingSince'
  | 'waitOutcome'
  | 'exitReason'
  | 'completedAt'
>

/** A step execution already stored (a wait that ended, a webhook that answered) and how it ended. */
type StepUpdate = { id: string; status: 'COMPLETED' | 'FAILED'; output: StepOutput | null; error: string | null }
type WaitEnd = { executionId: string; stepId: string; output: StepOutput }

const rowsPerInsert = 500

/**
 * A row's top-level fields that are not null: a key missing from a `jsonb_to_recordset` object reads as NULL, as
 * a null does, and most of an execution's fields are null once it ends, so parsing the shorter text costs
 * PostgreSQL less. Nested values (the context) keep their nulls.
 */
function withoutNulls<T extends object>(row: T): Partial<T> {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null)) as Partial<T>
}

/**
 * What a batch of executions wrote while their steps ran, flushed in a few set-based statements at the end of the
 * batch's transaction instead of several statements per execution: the history, the events, the executions'
 * new rows (one UPDATE, so the counters' trigger runs once per batch), and the tracked segments of the contacts
 * whose data changed (one re-evaluation for all of them).
 */
export class BatchWrites {
  /** A SEND_EMAIL step queued an email: the outbox is woken once the batch has committed. */
  queuedEmails = false
  private readonly history: StepExecutionInsert[] = []
  private readonly events: EventInput[] = []
  private readonly executions: ExecutionState[] = []
  private readonly stepUpdates: StepUpdate[] = []
  private readonly waitEnds: WaitEnd[] = []
  private readonly changedContacts = new Map<string, Set<string>>()

  addHistory(row: StepExecutionInsert): void {
    this.history.push(row)
  }

  addEvents(events: readonly EventInput[]): void {
    this.events.push(...events)
  }

  saveExecution(state: ExecutionState): void {
    this.executions.push(state)
  }

  updateStep(update: StepUpdate): void {
    this.stepUpdates.push(update)
  }

  /** The open (WAITING) step execution of a DELAY or WAIT_FOR_EVENT that ended, completed with `output`. */
  endWait(end: WaitEnd): void {
    this.waitEnds.push(end)
  }

  reevaluateSegments(projectId: string, contactId: string): void {
    const contacts = this.changedContacts.get(projectId) ?? new Set()
    this.changedContacts.set(projectId, contacts.add(contactId))
  }

  async flush(tx: Transaction, log: Logger): Promise<void> {
    if (this.waitEnds.length > 0) {
      await tx.execute(sql`
        UPDATE workflow_step_executions AS h
        SET status = 'COMPLETED', output = coalesce(h.output, '{}'::jsonb) || v.output, completed_at = now(),
            updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(this.waitEnds)}::jsonb) AS v("executionId" uuid, "stepId" uuid, output jsonb)
        WHERE h.execution_id = v."executionId" AND h.step_id = v."stepId" AND h.status = 'WAITING'
          -- Without it the planner, blind to the recordset's size, hashes it against a scan of the whole history.
          AND h.execution_id = ANY(${sql.param(this.waitEnds.map((end) => end.executionId))}::uuid[])`)
    }
    if (this.stepUpdates.length > 0) {
      await tx.execute(sql`
        UPDATE workflow_step_executions AS h
        SET status = v.status::workflow_step_execution_status, output = v.output, error = v.error,
            completed_at = now(), updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(this.stepUpdates)}::jsonb)
          AS v(id uuid, status text, output jsonb, error text)
        WHERE h.id = v.id`)
    }
    for (let start = 0; start < this.history.length; start += rowsPerInsert) {
      await tx.insert(workflowStepExecutions).values(this.history.slice(start, start + rowsPerInsert))
    }
    await publishEvents(tx, this.events)
    if (this.changedContacts.size > 0) {
      await reevaluateContacts(
        tx,
        log,
        new Map([...this.changedContacts].map(([projectId, contacts]) => [projectId, [...contacts]])),
      )
    }
    if (this.executions.length > 0) {
      await tx.execute(sql`
        UPDATE workflow_executions AS x
        SET status = v.status::workflow_execution_status, current_step_id = v."currentStepId", context = v.context,
            due_at = v."dueAt", leased_until = v."leasedUntil", waiting_for = v."waitingFor",
            waiting_since = v."waitingSince", wait_outcome = v."waitOutcome"::workflow_wait_outcome,
            exit_reason = v."exitReason", completed_at = v."completedAt", updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(this.executions.map(withoutNulls))}::jsonb) AS v(
          id uuid, status text, "currentStepId" uuid, context jsonb, "dueAt" timestamptz, "leasedUntil" timestamptz,
          "waitingFor" text, "waitingSince" timestamptz, "waitOutcome" text, "exitReason" text,
          "completedAt" timestamptz)
        WHERE x.id = v.id`)
    }
  }
}
