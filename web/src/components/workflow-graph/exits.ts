import { exitsOf, type StepExit } from '@server/modules/workflows/graph.js'
import type { Transition, WorkflowStep } from '../../api/types'

/*
 * A step's ways out come from the server's own graph rules (a pure module), so the editor offers exactly the
 * branches the API accepts: yes/no (or a multi condition's ids and `default`), EVENT/TIMEOUT, or one plain way.
 */
export type { StepExit }

export function stepExits(step: Pick<WorkflowStep, 'id' | 'type' | 'name' | 'config'>): StepExit[] {
  return exitsOf(step)
}

/** A handle id per way out, stable across renders. */
export function exitId(exit: Pick<StepExit, 'condition' | 'waitOutcome'>): string {
  if (exit.condition) return `branch:${exit.condition.branch}`
  if (exit.waitOutcome) return `wait:${exit.waitOutcome}`
  return 'next'
}

/** What the way out is called on the graph and in the panel; a plain step's single way has no name. */
export function exitLabel(exit: Pick<StepExit, 'condition' | 'waitOutcome'>): string {
  if (exit.condition) return exit.condition.branch
  if (exit.waitOutcome === 'EVENT') return 'event'
  if (exit.waitOutcome === 'TIMEOUT') return 'timeout'
  return ''
}

/** The transition that takes this way out of the step, if any. */
export function transitionOf(step: WorkflowStep, exit: StepExit): Transition | undefined {
  return step.outgoingTransitions.find((transition) => exitId(transition) === exitId(exit))
}
