import { exitConfig } from '../../step-config/config.js'
import type { StepOf, StepResult } from '../step-context.js'

/** EXIT: the execution leaves the workflow here, with the step's reason (`exit_step` unless it names one). */
export function runExit(step: StepOf<'EXIT'>): StepResult {
  const { reason } = exitConfig.parse(step.config)
  return { kind: 'exit', output: { exited: true, reason }, reason }
}
