import type { AppContext } from '../../../context.js'
import type { Transaction } from '../../../db/client.js'
import type { StepType } from '../step-config/config-by-type.js'
import type { StepOutcome, StepRow } from './definition.js'

export type StepOutput = Record<string, unknown>

/** The contact an execution runs for, as steps read it. */
export type ExecutionContact = { id: string; email: string; subscribed: boolean; data: Record<string, unknown> }

/** What a step sees: its execution, inside the transaction that records the step. */
export type StepContext = {
  ctx: AppContext
  tx: Transaction
  projectId: string
  workflow: { id: string; name: string }
  execution: {
    id: string
    contactId: string
    startedAt: Date
    triggerKind: 'EVENT' | 'MANUAL'
    context: Record<string, unknown>
  }
  /** Loaded on first use, once per transaction. */
  contact(): Promise<ExecutionContact>
  /**
   * After a step changed the contact: it is loaded again when next read, and (with `data` changed) its tracked
   * segments are re-evaluated once for the whole batch, at its end.
   */
  contactChanged(change: { data: boolean }): void
  /** After a step put an email in the outbox: the outbox is woken once the batch has committed. */
  emailQueued(): void
  /** After the TRIGGER step: the execution's start, recorded as `workflow.started` in the activity feed. */
  executionStarted(): void
}

/**
 * How a step ended: go on (along the transition of its outcome), wait (a DELAY or WAIT_FOR_EVENT, due again at
 * `dueAt`), leave the workflow, fail it, or call out over HTTP outside the transaction (WEBHOOK).
 */
export type StepResult =
  | { kind: 'next'; output: StepOutput; outcome?: StepOutcome }
  | { kind: 'wait'; output: StepOutput; dueAt: Date | null; waitingFor?: string }
  | { kind: 'exit'; output: StepOutput; reason: string }
  | { kind: 'fail'; error: string; output?: StepOutput }
  | { kind: 'call'; output: StepOutput; call: () => Promise<StepResult> }

/** How a DELAY or WAIT_FOR_EVENT ended: its record's output, and the outcome that picks the transition out. */
export type WaitEnded = { output: StepOutput; outcome: StepOutcome }

export const failed = (error: string, output?: StepOutput): StepResult => ({ kind: 'fail', error, output })

/** A step row of one type, as the runner of that type receives it. */
export type StepOf<T extends StepType> = StepRow & { type: T }

/** Runs one step of type `T` inside the walk's transaction and says how it ended. */
export type StepRunner<T extends StepType> = (step: StepOf<T>, scope: StepContext) => StepResult | Promise<StepResult>
