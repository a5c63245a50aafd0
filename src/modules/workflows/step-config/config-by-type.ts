import { z } from 'zod'
import type { workflowStepType } from '../../../db/schema/index.js'
import { webhookStepConfig } from '../webhook/index.js'
import {
  conditionConfig,
  delayConfig,
  exitConfig,
  sendEmailConfig,
  triggerConfig,
  updateContactConfig,
  waitForEventConfig,
} from './config.js'

export type StepType = (typeof workflowStepType.enumValues)[number]

/** Each step type's config schema: what a saved step's `config` must satisfy. */
export const configSchemaByType: Record<StepType, z.ZodType<Record<string, unknown>>> = {
  TRIGGER: triggerConfig,
  SEND_EMAIL: sendEmailConfig,
  DELAY: delayConfig,
  WAIT_FOR_EVENT: waitForEventConfig,
  CONDITION: conditionConfig,
  WEBHOOK: webhookStepConfig,
  UPDATE_CONTACT: updateContactConfig,
  EXIT: exitConfig,
}

/** A CONDITION is read as the mode it names, so a mistake is reported at its field, not as "matches no mode". */
function schemaFor(type: StepType, config: unknown): z.ZodType<Record<string, unknown>> {
  if (type !== 'CONDITION') return configSchemaByType[type]
  const [multi, single] = conditionConfig.options
  const mode = typeof config === 'object' && config !== null && 'mode' in config ? config.mode : undefined
  return mode === 'multi' ? multi : single
}

/** A stored config is kept small: it is read on every step an execution takes. */
const maxConfigBytes = 64 * 1024

/**
 * The config as the step type's schema reads it (defaults applied), or a ZodError whose paths start at `config`,
 * so the answer is a 422 naming e.g. `config.amount`.
 */
export function parseStepConfig(type: StepType, config: unknown): Record<string, unknown> {
  const parsed = schemaFor(type, config).safeParse(config)
  if (!parsed.success) {
    throw new z.ZodError(parsed.error.issues.map((issue) => ({ ...issue, path: ['config', ...issue.path] })))
  }
  if (Buffer.byteLength(JSON.stringify(parsed.data)) > maxConfigBytes) {
    throw new z.ZodError([
      {
        code: 'too_big',
        origin: 'string',
        maximum: maxConfigBytes,
        inclusive: true,
        path: ['config'],
        message: `A step's config may take at most ${maxConfigBytes} bytes of JSON`,
        input: undefined,
      },
    ])
  }
  return parsed.data
}
