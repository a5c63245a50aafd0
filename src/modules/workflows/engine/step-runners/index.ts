import type { StepType } from '../../step-config/config-by-type.js'
import type { StepContext, StepOf, StepResult, StepRunner } from '../step-context.js'
import { runCondition } from './condition.js'
import { runDelay } from './delay.js'
import { runExit } from './exit.js'
import { runSendEmail } from './send-email.js'
import { runTrigger } from './trigger.js'
import { runUpdateContact } from './update-contact.js'
import { runWaitForEvent } from './wait-for-event.js'
import { runWebhook } from './webhook.js'

/**
 * Every step type's runner, keyed by the type (the database enum's values): a type added to the schema without a
 * runner here, or a runner filed under another type than its own, is a type error.
 */
const stepRunners: { [T in StepType]: StepRunner<T> } = {
  TRIGGER: runTrigger,
  SEND_EMAIL: runSendEmail,
  DELAY: runDelay,
  WAIT_FOR_EVENT: runWaitForEvent,
  CONDITION: runCondition,
  WEBHOOK: runWebhook,
  UPDATE_CONTACT: runUpdateContact,
  EXIT: runExit,
}

/** Runs a step with the runner of its type. */
export async function runStep<T extends StepType>(step: StepOf<T>, scope: StepContext): Promise<StepResult> {
  const run: StepRunner<T> = stepRunners[step.type]
  return run(step, scope)
}
