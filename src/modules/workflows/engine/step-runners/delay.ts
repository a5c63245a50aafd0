import { delayConfig, delayMinutes } from '../../step-config/config.js'
import type { StepOf, StepResult, WaitEnded } from '../step-context.js'

/**
 * DELAY: the execution waits with `dueAt` set and no timer; the engine's loop claims it again when due, so a
 * delay survives a restart.
 */
export function runDelay(step: StepOf<'DELAY'>): StepResult {
  const delay = delayConfig.parse(step.config)
  const resumeAt = new Date(Date.now() + delayMinutes(delay) * 60_000)
  return {
    kind: 'wait',
    output: { delayAmount: delay.amount, delayUnit: delay.unit, resumeAt: resumeAt.toISOString(), queued: true },
    dueAt: resumeAt,
  }
}

/** When the delay is over: recorded as resumed, and the walk takes the step's transition. */
export function delayEnded(): WaitEnded {
  return { output: { resumedAt: new Date().toISOString() }, outcome: {} }
}
