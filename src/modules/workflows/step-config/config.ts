import { z } from 'zod'
import { conditionOperators } from '../../../conditions/index.js'
import { isReservedEventName } from '../../../events/names.js'
import { jsonValue } from '../../../http/json-value.js'

/*
 * Each step type's `config`, Plunk's shapes (plunk-compat §4.1), validated when a step is saved (DESIGN §4:
 * Plunk stores configs as given and fails at run time; here a bad config is a 422 that changes nothing).
 */

const minutesPerUnit = { minutes: 1, hours: 60, days: 1_440 } as const
const maxDelayMinutes = 365 * minutesPerUnit.days
/** A year, in seconds: the longest a WAIT_FOR_EVENT may wait before its timeout. */
const maxWaitSeconds = 31_536_000

export const triggerConfig = z.object({ eventName: z.string().trim().min(1).max(200) })

export const sendEmailConfig = z.object({
  // Plunk's deprecated copy of the step's `templateId` column; the column decides.
  templateId: z.uuid().optional(),
  recipient: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('CONTACT') }),
      z.object({ type: z.literal('CUSTOM'), customEmail: z.email().max(320) }),
    ])
    .default({ type: 'CONTACT' }),
})

export const delayConfig = z
  .object({
    amount: z.number().positive(),
    unit: z.enum(['minutes', 'hours', 'days']),
  })
  .refine((delay) => delay.amount * minutesPerUnit[delay.unit] <= maxDelayMinutes, {
    message: 'A delay may last at most 365 days',
    path: ['amount'],
  })

/** Internal names this service never emits (e.g. `email.sentt`, `segment.x`) can never end a wait. */
const internalEventNames = [
  /^email\.(sent|delivery|open|click|bounce|complaint|received)$/,
  /^contact\.(un)?subscribed$/,
  /^segment\.[^.]+\.(entry|exit)$/,
]

export const waitForEventConfig = z.object({
  eventName: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine(
      (name) => !isReservedEventName(name) || internalEventNames.some((pattern) => pattern.test(name.toLowerCase())),
      { message: 'No event of this reserved name is ever emitted, so the wait could never end' },
    ),
  timeout: z.number().int().positive().max(maxWaitSeconds).optional(),
})

/** A comparison of CONDITION steps: Plunk's operator set, plus `unit` for the engine's date operators. */
const conditionComparison = {
  operator: z.enum(conditionOperators),
  value: z.unknown().optional(),
  unit: z.enum(['minutes', 'hours', 'days']).optional(),
}

export const conditionConfig = z.union([
  z.object({
    mode: z.literal('multi'),
    field: z.string().trim().min(1).max(200),
    branches: z
      .array(z.object({ id: z.string().trim().min(1).max(100), name: z.string().max(200), ...conditionComparison }))
      .min(1)
      .max(20),
  }),
  z.object({ mode: z.literal('single').optional(), field: z.string().trim().min(1).max(200), ...conditionComparison }),
])

export const updateContactConfig = z
  .object({
    updates: z.record(z.string().min(1).max(200), jsonValue).optional(),
    subscriptionAction: z.enum(['none', 'subscribe', 'unsubscribe']).default('none'),
  })
  .refine((config) => Object.keys(config.updates ?? {}).length > 0 || config.subscriptionAction !== 'none', {
    message: 'An UPDATE_CONTACT step needs data updates or a subscription action',
  })

export const exitConfig = z.object({ reason: z.string().max(500).default('exit_step') })

export type DelayConfig = z.infer<typeof delayConfig>

export function delayMinutes(delay: DelayConfig): number {
  return delay.amount * minutesPerUnit[delay.unit]
}
