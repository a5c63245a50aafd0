import { z } from 'zod'
import { workflowStepType, workflowTriggerType, workflowWaitOutcome } from '../../db/schema/index.js'
import { jsonValue } from '../../http/json-value.js'
import { offsetPage, offsetPageQuery } from '../../http/pagination.js'
import { waitForEventConfig } from './step-config/config.js'

/*
 * Plunk's request and answer shapes (plunk-compat §4): bare objects, `_count` on list items, steps with their
 * template and transitions. Limits are ours: Plunk checks no lengths.
 */

const name = z.string().trim().min(1).max(255)
const description = z.string().max(2_000).nullable().optional()
/** A trigger's event: the WAIT_FOR_EVENT rule too, so a reserved name no one ever emits is refused. */
export const triggerEventName = waitForEventConfig.shape.eventName
const maxTriggerConfigBytes = 16 * 1024

export const stepTypeSchema = z.enum(workflowStepType.enumValues)
const triggerTypeSchema = z.enum(workflowTriggerType.enumValues)

/** `enabled` is read and ignored: a workflow starts disabled whatever is sent (spec "Workflow"). */
export const workflowCreate = z.object({
  name,
  eventName: triggerEventName,
  description,
  enabled: z.boolean().optional(),
  allowReentry: z.boolean().default(false),
})
export type WorkflowCreate = z.infer<typeof workflowCreate>

/** An EVENT trigger's config is checked as `{eventName}` by the service, which knows the resulting type. */
const triggerConfigInput = z
  .record(z.string().max(200), jsonValue)
  .refine((config) => Buffer.byteLength(JSON.stringify(config)) <= maxTriggerConfigBytes, {
    message: `triggerConfig may take at most ${maxTriggerConfigBytes} bytes of JSON`,
  })

export const workflowUpdate = z.object({
  name: name.optional(),
  description,
  triggerType: triggerTypeSchema.optional(),
  triggerConfig: triggerConfigInput.nullable().optional(),
  enabled: z.boolean().optional(),
  allowReentry: z.boolean().optional(),
})
export type WorkflowUpdate = z.infer<typeof workflowUpdate>

/** Path ids are any text: one that is not a uuid is simply not found, as Plunk answers (it checks none). */
const pathId = z.string().min(1).max(100)
export const workflowIdParams = z.object({ id: pathId })
export const stepIdParams = z.object({ id: pathId, stepId: pathId })
export const transitionIdParams = z.object({ id: pathId, transitionId: pathId })

const listSorts = ['name', 'createdAt', 'updatedAt', 'steps'] as const
type ListSort = (typeof listSorts)[number]

/** Unknown parameters are ignored, and so are unknown `sort`/`dir` values; a bad `status` is a 400. */
export const workflowListQuery = offsetPageQuery(100).extend({
  search: z.string().trim().max(200).optional(),
  status: z.enum(['active', 'disabled']).optional(),
  sort: z
    .string()
    .optional()
    .transform((value): ListSort => (listSorts.includes(value as ListSort) ? (value as ListSort) : 'createdAt')),
  dir: z
    .string()
    .optional()
    .transform((value): 'asc' | 'desc' => (value === 'asc' ? 'asc' : 'desc')),
})
export type WorkflowListQuery = z.infer<typeof workflowListQuery>

export const fieldsQuery = z.object({ eventName: z.string().trim().min(1).max(200).optional() })

const position = z.object({ x: z.number(), y: z.number() })
const stepName = z.string().trim().min(1).max(255)

/** `config` is checked against the type's schema by the service (422 under `config`). */
export const stepCreate = z.object({
  type: stepTypeSchema,
  name: stepName,
  position,
  config: z.record(z.string(), z.unknown()),
  templateId: z.uuid().nullish(),
  autoConnect: z.boolean().default(true),
})
export type StepCreate = z.infer<typeof stepCreate>

/**
 * `POST /workflows/:id/transitions/:transitionId/insert-step` (Plunk's, used by its MCP): a step's body without
 * `autoConnect`; `position` may be left out (the new step goes halfway between the transition's ends).
 */
export const stepInsert = stepCreate.omit({ autoConnect: true }).extend({ position: position.optional() })
export type StepInsert = z.infer<typeof stepInsert>

/** `templateId: null` unlinks the template. */
export const stepUpdate = z.object({
  name: stepName.optional(),
  position: position.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  templateId: z.uuid().nullable().optional(),
})
export type StepUpdate = z.infer<typeof stepUpdate>

/** `splice=true` (or `1`) reconnects the neighbours; any other value deletes the step alone. */
export const stepDeleteQuery = z.object({
  splice: z
    .string()
    .optional()
    .transform((value) => value === 'true' || value === '1'),
})

const waitOutcome = z
  .string()
  .transform((value) => value.toUpperCase())
  .pipe(z.enum(workflowWaitOutcome.enumValues))

const branch = z.string().trim().min(1).max(100)

/**
 * `branch` picks a CONDITION step's way (`event`/`timeout` are also read as a WAIT_FOR_EVENT outcome). The spec puts
 * it at the top level, Plunk's clients under `condition`: either is taken, and both must then agree.
 */
export const transitionCreate = z
  .object({
    fromStepId: z.uuid(),
    toStepId: z.uuid(),
    branch: branch.optional(),
    condition: z.object({ branch }).nullish(),
    waitOutcome: waitOutcome.nullish(),
    priority: z.number().int().min(0).max(1_000).default(0),
  })
  .transform(({ branch, condition, ...rest }, ctx) => {
    if (branch !== undefined && condition && condition.branch !== branch) {
      ctx.addIssue({
        code: 'custom',
        path: ['branch'],
        message: `branch "${branch}" and condition.branch "${condition.branch}" disagree; send one of them`,
      })
      return z.NEVER
    }
    return { ...rest, condition: branch === undefined ? condition : { branch } }
  })
export type TransitionCreate = z.infer<typeof transitionCreate>

export const workflowView = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  triggerType: triggerTypeSchema,
  triggerConfig: z.record(z.string(), z.unknown()).nullable(),
  enabled: z.boolean(),
  allowReentry: z.boolean(),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type WorkflowView = z.infer<typeof workflowView>

/** PATCH answers with the project's name too, as Plunk does. */
export const workflowUpdated = workflowView.extend({ project: z.object({ name: z.string() }) })
export type WorkflowUpdated = z.infer<typeof workflowUpdated>

const workflowListItem = workflowView.extend({
  _count: z.object({ steps: z.number().int(), executions: z.number().int() }),
})

export const workflowPage = offsetPage(workflowListItem)
export type WorkflowPage = z.infer<typeof workflowPage>

export const transitionView = z.object({
  id: z.uuid(),
  fromStepId: z.uuid(),
  toStepId: z.uuid(),
  condition: z.object({ branch: z.string() }).nullable(),
  waitOutcome: z.enum(workflowWaitOutcome.enumValues).nullable(),
  priority: z.number().int(),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type TransitionView = z.infer<typeof transitionView>

export const stepView = z.object({
  id: z.uuid(),
  workflowId: z.uuid(),
  type: stepTypeSchema,
  name: z.string(),
  position,
  config: z.record(z.string(), z.unknown()),
  templateId: z.uuid().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type StepView = z.infer<typeof stepView>

export const stepDetail = stepView.extend({
  template: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  outgoingTransitions: z.array(transitionView),
  incomingTransitions: z.array(transitionView),
})
export type StepDetail = z.infer<typeof stepDetail>

export const workflowDetail = workflowView.extend({ steps: z.array(stepDetail) })
export type WorkflowDetail = z.infer<typeof workflowDetail>

const fieldType = z.enum(['string', 'number', 'boolean', 'date'])

export const workflowFields = z.object({
  fields: z.array(z.string()),
  typedFields: z.array(
    z.object({ field: z.string(), type: fieldType, category: z.enum(['Contact Fields', 'Custom Data', 'Event Data']) }),
  ),
  count: z.number().int(),
})
export type WorkflowFields = z.infer<typeof workflowFields>
