import type { workflowExecutions } from '../../../../db/schema/index.js'
import { waitForEventConfig } from '../../step-config/config.js'
import type { StepOf, StepResult, WaitEnded } from '../step-context.js'

/**
 * WAIT_FOR_EVENT: the execution waits for `eventName` (`executions/triggers.ts` ends the wait when it arrives), due
 * again at its timeout, if it has one.
 */
export function runWaitForEvent(step: StepOf<'WAIT_FOR_EVENT'>): StepResult {
  const wait = waitForEventConfig.parse(step.config)
  const timeoutAt = wait.timeout === undefined ? null : new Date(Date.now() + wait.timeout * 1000)
  return {
    kind: 'wait',
    output: { eventName: wait.eventName, timeoutAt: timeoutAt?.toISOString() ?? null },
    dueAt: timeoutAt,
    waitingFor: wait.eventName,
  }
}

/**
 * How the wait ended, for its record and for the transition out of it: the event came, or (no outcome noted,
 * only the due time passed) the timeout.
 */
export function waitForEventEnded(
  execution: Pick<typeof workflowExecutions.$inferSelect, 'waitingFor' | 'waitOutcome'>,
): WaitEnded {
  const eventName = execution.waitingFor
  const waitOutcome = execution.waitOutcome ?? 'TIMEOUT'
  const output =
    waitOutcome === 'EVENT'
      ? { waitOutcome, eventReceived: true, eventName, receivedAt: new Date().toISOString() }
      : { waitOutcome, timedOut: true, eventName }
  return { output, outcome: { waitOutcome } }
}
