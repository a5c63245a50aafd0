import { z } from 'zod'
import { jsonValue } from '../../../http/json-value.js'
import { offsetPageQuery } from '../../../http/pagination.js'

export const executionStatuses = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const

/** A manual start's context: per-execution variables, bounded like contact data. */
const maxContextBytes = 64 * 1024

export const executionStart = z.object({
  contactId: z.uuid(),
  context: z
    .record(z.string().min(1).max(200), jsonValue)
    .refine((context) => JSON.stringify(context).length <= maxContextBytes, {
      message: `context may hold at most ${maxContextBytes} bytes of JSON`,
    })
    .optional(),
})
export type ExecutionStart = z.infer<typeof executionStart>

export const workflowParams = z.object({ id: z.uuid() })
export const executionParams = z.object({ id: z.uuid(), executionId: z.uuid() })

export const executionListQuery = offsetPageQuery(100).extend({ status: z.enum(executionStatuses).optional() })
export type ExecutionListQuery = z.infer<typeof executionListQuery>

const stepSummary = z.object({ id: z.string(), name: z.string(), type: z.string() })

export const executionView = z.object({
  id: z.string(),
  workflowId: z.string(),
  contactId: z.string(),
  status: z.enum(executionStatuses),
  triggerKind: z.enum(['EVENT', 'MANUAL']),
  currentStepId: z.string().nullable(),
  exitReason: z.string().nullable(),
  context: z.record(z.string(), z.unknown()),
  /** When it next acts by itself: the end of a DELAY, a wait's timeout. */
  dueAt: z.date().nullable(),
  waitingFor: z.string().nullable(),
  startedAt: z.date(),
  completedAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type ExecutionView = z.infer<typeof executionView>

const executionListItem = executionView.extend({
  contact: z.object({ id: z.string(), email: z.string() }),
  currentStep: stepSummary.nullable(),
})

export const executionPage = z.object({
  executions: z.array(executionListItem),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  totalPages: z.number().int(),
})

const stepExecutionView = z.object({
  id: z.string(),
  executionId: z.string(),
  stepId: z.string().nullable(),
  status: z.string(),
  output: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  executeAfter: z.date().nullable(),
  startedAt: z.date().nullable(),
  completedAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
  step: stepSummary,
})

export const executionDetail = executionListItem.extend({
  workflow: z.object({ id: z.string(), name: z.string() }),
  stepExecutions: z.array(stepExecutionView),
})

export const cancelAllResult = z.object({ cancelled: z.number().int() })
