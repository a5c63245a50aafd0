import { sql } from 'drizzle-orm'
import {
  boolean,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt, updatedAt } from './columns.js'
import { contacts } from './contacts.js'
import { projects } from './foundation.js'
import { templates } from './templates.js'

const moment = () => timestamp({ withTimezone: true, mode: 'date' })

export const workflowTriggerType = pgEnum('workflow_trigger_type', ['EVENT', 'MANUAL', 'SCHEDULE'])
export const workflowStepType = pgEnum('workflow_step_type', [
  'TRIGGER',
  'SEND_EMAIL',
  'DELAY',
  'WAIT_FOR_EVENT',
  'CONDITION',
  'WEBHOOK',
  'UPDATE_CONTACT',
  'EXIT',
])
export const workflowExecutionStatus = pgEnum('workflow_execution_status', [
  'RUNNING',
  'WAITING',
  'COMPLETED',
  'EXITED',
  'FAILED',
  'CANCELLED',
])
export const workflowStepExecutionStatus = pgEnum('workflow_step_execution_status', [
  'PENDING',
  'SCHEDULED',
  'WAITING',
  'RUNNING',
  'COMPLETED',
  'SKIPPED',
  'FAILED',
])
export const workflowWaitOutcome = pgEnum('workflow_wait_outcome', ['EVENT', 'TIMEOUT'])
export const workflowTriggerKind = pgEnum('workflow_trigger_kind', ['EVENT', 'MANUAL'])

/**
 * A workflow. `eventName` repeats the EVENT trigger's event so committed events find the workflows they start by
 * index. Its executions are counted in `workflow_execution_counts`.
 */
export const workflows = pgTable(
  'workflows',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    triggerType: workflowTriggerType().notNull().default('EVENT'),
    triggerConfig: jsonb().$type<Record<string, unknown>>(),
    eventName: text(),
    enabled: boolean().notNull().default(false),
    allowReentry: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index().on(table.projectId, table.createdAt),
    index('workflows_trigger_index')
      .on(table.projectId, table.eventName)
      .where(sql`${table.enabled} AND ${table.triggerType} = 'EVENT'`),
  ],
)

export type StepPosition = { x: number; y: number }

/** A node of a workflow's graph; `config` is validated per type when saved. */
export const workflowSteps = pgTable(
  'workflow_steps',
  {
    id: uuid().primaryKey().defaultRandom(),
    workflowId: uuid()
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    type: workflowStepType().notNull(),
    name: text().notNull(),
    position: jsonb().$type<StepPosition>().notNull(),
    config: jsonb().$type<Record<string, unknown>>().notNull(),
    // A template in use cannot be deleted (the templates API checks); the reference is kept as a backstop.
    templateId: uuid().references(() => templates.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index().on(table.workflowId, table.createdAt),
    // The target of the transitions' composite references: an edge can only join steps of its own workflow.
    unique('workflow_steps_workflow_step_unique').on(table.workflowId, table.id),
    // One trigger per workflow, whatever races the API.
    uniqueIndex('workflow_steps_one_trigger').on(table.workflowId).where(sql`${table.type} = 'TRIGGER'`),
    index('workflow_steps_template_index').on(table.templateId).where(sql`${table.templateId} IS NOT NULL`),
  ],
)

/** An edge; `condition.branch` picks a CONDITION step's way, `waitOutcome` a WAIT_FOR_EVENT step's. */
export const workflowTransitions = pgTable(
  'workflow_transitions',
  {
    id: uuid().primaryKey().defaultRandom(),
    workflowId: uuid()
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    fromStepId: uuid().notNull(),
    toStepId: uuid().notNull(),
    condition: jsonb().$type<{ branch: string }>(),
    waitOutcome: workflowWaitOutcome(),
    priority: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    foreignKey({
      name: 'workflow_transitions_from_step_fk',
      columns: [table.workflowId, table.fromStepId],
      foreignColumns: [workflowSteps.workflowId, workflowSteps.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'workflow_transitions_to_step_fk',
      columns: [table.workflowId, table.toStepId],
      foreignColumns: [workflowSteps.workflowId, workflowSteps.id],
    }).onDelete('cascade'),
    index().on(table.fromStepId, table.priority),
    index().on(table.toStepId),
  ],
)

/**
 * One run of a workflow for one contact.
 *
 * - `dueAt`: when a worker should next act on it (now for a runnable one, the end of a DELAY, a wait's
 *   timeout); null while it waits without a timeout or once it has finished. Workers claim by it.
 * - `leasedUntil`: set while a worker holds it; an expired lease lets another worker take it over.
 * - `waitingFor`, `waitingSince`, `waitOutcome`: a WAIT_FOR_EVENT in progress, and how it ended (the event
 *   bus sets EVENT; a due timeout means TIMEOUT).
 * - `context`: the trigger event's data, or the context of a manual start; events that end a wait are merged in.
 */
export const workflowExecutions = pgTable(
  'workflow_executions',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    workflowId: uuid()
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    contactId: uuid()
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    status: workflowExecutionStatus().notNull().default('RUNNING'),
    triggerKind: workflowTriggerKind().notNull(),
    triggerEventId: uuid(),
    currentStepId: uuid().references(() => workflowSteps.id, { onDelete: 'set null' }),
    exitReason: text(),
    context: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    dueAt: moment(),
    leasedUntil: moment(),
    waitingFor: text(),
    waitingSince: moment(),
    waitOutcome: workflowWaitOutcome(),
    startedAt: moment().notNull().defaultNow(),
    completedAt: moment(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('workflow_executions_due_index').on(table.dueAt).where(sql`${table.dueAt} IS NOT NULL`),
    index().on(table.workflowId, table.startedAt),
    // allowReentry true: never two active executions of one workflow for one contact, under any race.
    uniqueIndex('workflow_executions_one_active')
      .on(table.workflowId, table.contactId)
      .where(sql`${table.status} IN ('RUNNING', 'WAITING')`),
    // Waits the event bus resumes: a contact's executions waiting for an event.
    index('workflow_executions_waiting_index')
      .on(table.contactId, table.waitingFor)
      .where(sql`${table.status} = 'WAITING' AND ${table.waitingFor} IS NOT NULL`),
    index('workflow_executions_active_index')
      .on(table.projectId, table.dueAt)
      .where(sql`${table.status} IN ('RUNNING', 'WAITING')`),
  ],
)

/**
 * Every contact that ever entered a workflow: with allowReentry false a contact runs it once, ever, and this
 * key is what settles two concurrent events for one contact.
 */
export const workflowEntries = pgTable(
  'workflow_entries',
  {
    workflowId: uuid()
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    contactId: uuid()
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    enteredAt: moment().notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.workflowId, table.contactId] }), index().on(table.contactId)],
)

/** A step's run within an execution: the execution's history. The step's type and name are kept with it. */
export const workflowStepExecutions = pgTable(
  'workflow_step_executions',
  {
    id: uuid().primaryKey().defaultRandom(),
    executionId: uuid()
      .notNull()
      .references(() => workflowExecutions.id, { onDelete: 'cascade' }),
    stepId: uuid().references(() => workflowSteps.id, { onDelete: 'set null' }),
    stepType: workflowStepType().notNull(),
    stepName: text().notNull(),
    status: workflowStepExecutionStatus().notNull(),
    output: jsonb().$type<Record<string, unknown>>(),
    error: text(),
    executeAfter: moment(),
    startedAt: moment(),
    completedAt: moment(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index().on(table.executionId, table.createdAt), index().on(table.stepId)],
)

/**
 * Changes of a workflow's executions by status, appended by a statement-level trigger on executions (one row per
 * workflow and status a statement changed) and summed by readers; a job folds them into one row per status.
 * Appending, never updating one counter row, keeps the engine, the event bus and the API from queueing on (and
 * deadlocking over) a hot row. No foreign key for the same reason; a workflow's rows go with it (trigger).
 */
export const workflowExecutionCounts = pgTable(
  'workflow_execution_counts',
  {
    workflowId: uuid().notNull(),
    status: workflowExecutionStatus().notNull(),
    count: integer().notNull(),
  },
  (table) => [index().on(table.workflowId)],
)
