import type { StepContext, StepOf, StepResult } from '../step-context.js'

/** TRIGGER: the execution's first step; it only marks the start, so the feed shows `workflow.started`. */
export function runTrigger(step: StepOf<'TRIGGER'>, scope: StepContext): StepResult {
  scope.executionStarted()
  return {
    kind: 'next',
    output: { triggered: true, eventName: step.config.eventName ?? null, timestamp: new Date().toISOString() },
  }
}
