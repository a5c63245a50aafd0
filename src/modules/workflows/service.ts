import { and, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Database, Transaction } from '../../db/client.js'
import { projects, workflowSteps, workflows } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { assertNoActiveRuns } from './active.js'
import { activeExecutions, loadWorkflowCounts } from './counts.js'
import { editTransaction } from './edit-transaction.js'
import { assertRunnable } from './runnable.js'
import { sameJson } from './same-json.js'
import {
  triggerEventName,
  type WorkflowCreate,
  type WorkflowUpdate,
  type WorkflowUpdated,
  type WorkflowView,
} from './schemas.js'
import { findWorkflowRow, toWorkflowView, type WorkflowRow } from './views.js'

export { duplicateWorkflow } from './duplicate.js'
export { listWorkflows } from './list.js'
export { getWorkflow } from './views.js'

/** The TRIGGER step a workflow's event makes: Plunk's name, place and config. */
function triggerStepValues(workflowId: string, eventName: string) {
  return {
    workflowId,
    type: 'TRIGGER' as const,
    name: `Trigger: ${eventName}`,
    position: { x: 100, y: 100 },
    config: { eventName },
  }
}

/** `POST /workflows`: disabled whatever `enabled` says (spec), with its TRIGGER step, in one transaction. */
export async function createWorkflow(db: Database, projectId: string, input: WorkflowCreate): Promise<WorkflowView> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(workflows)
      .values({
        projectId,
        name: input.name,
        description: input.description ?? null,
        triggerType: 'EVENT',
        triggerConfig: { eventName: input.eventName },
        eventName: input.eventName,
        enabled: false,
        allowReentry: input.allowReentry,
      })
      .returning()
    if (!row) throw new Error('workflow insert returned nothing')
    await tx.insert(workflowSteps).values(triggerStepValues(row.id, input.eventName))
    return toWorkflowView(row)
  })
}

type Trigger = Pick<WorkflowRow, 'triggerType' | 'triggerConfig' | 'eventName'>

const eventTriggerConfig = z.object({ eventName: triggerEventName })

/**
 * The trigger after the update, or undefined when the request leaves it alone. An EVENT trigger's config must be
 * `{eventName}` (422 under `triggerConfig` otherwise); other types keep the config given.
 */
function nextTrigger(current: WorkflowRow, input: WorkflowUpdate): Trigger | undefined {
  if (input.triggerType === undefined && input.triggerConfig === undefined) return undefined
  const triggerType = input.triggerType ?? current.triggerType
  const config = input.triggerConfig === undefined ? current.triggerConfig : input.triggerConfig
  if (triggerType !== 'EVENT') return { triggerType, triggerConfig: config, eventName: null }
  const parsed = eventTriggerConfig.safeParse(config)
  if (!parsed.success) {
    throw new z.ZodError(parsed.error.issues.map((issue) => ({ ...issue, path: ['triggerConfig', ...issue.path] })))
  }
  return { triggerType, triggerConfig: parsed.data, eventName: parsed.data.eventName }
}

function triggerChanged(current: WorkflowRow, next: Trigger): boolean {
  return current.triggerType !== next.triggerType || !sameJson(current.triggerConfig, next.triggerConfig)
}

/** The TRIGGER step follows the event: its name and config name the new event. */
async function renameTriggerStep(tx: Transaction, workflowId: string, eventName: string): Promise<void> {
  const { name, config } = triggerStepValues(workflowId, eventName)
  await tx
    .update(workflowSteps)
    .set({ name, config })
    .where(and(eq(workflowSteps.workflowId, workflowId), eq(workflowSteps.type, 'TRIGGER')))
}

/**
 * `PATCH /workflows/:id`. A trigger change is a 409 while the workflow is enabled and has active executions
 * (Plunk's rule); enabling checks that every step can run (400 naming the steps otherwise).
 */
export async function updateWorkflow(
  db: Database,
  projectId: string,
  workflowId: string,
  input: WorkflowUpdate,
): Promise<WorkflowUpdated> {
  return editTransaction(db, async (tx) => {
    const current = await findWorkflowRow(tx, projectId, workflowId, { lock: true })
    const trigger = nextTrigger(current, input)
    const retrigger = trigger && triggerChanged(current, trigger) ? trigger : undefined
    if (retrigger) {
      await assertNoActiveRuns(
        tx,
        current,
        'modify the workflow trigger',
        'name, description, enabled and re-entry settings',
      )
    }
    if (input.enabled === true && !current.enabled) await assertRunnable(tx, workflowId)
    const { triggerType: _type, triggerConfig: _config, ...fields } = input
    const [row] = await tx
      .update(workflows)
      .set({ ...fields, ...retrigger, updatedAt: new Date() })
      .where(eq(workflows.id, current.id))
      .returning()
    if (!row) throw new Error('workflow update returned nothing')
    if (retrigger?.eventName && retrigger.eventName !== current.eventName) {
      await renameTriggerStep(tx, current.id, retrigger.eventName)
    }
    const [project] = await tx.select({ name: projects.name }).from(projects).where(eq(projects.id, projectId))
    return { ...toWorkflowView(row), project: { name: project?.name ?? '' } }
  })
}

/** `DELETE /workflows/:id`: 409 while executions are RUNNING or WAITING (spec), counted by the counters. */
export async function deleteWorkflow(db: Database, projectId: string, workflowId: string): Promise<void> {
  await editTransaction(db, async (tx) => {
    const current = await findWorkflowRow(tx, projectId, workflowId, { lock: true })
    const active = activeExecutions(await loadWorkflowCounts(tx, current.id))
    if (active > 0) {
      throw new AppError(
        'CONFLICT',
        `Cannot delete workflow: it has ${active} active execution(s). Cancel them or wait for them to complete first.`,
        { details: { activeExecutions: active } },
      )
    }
    await tx.delete(workflows).where(and(eq(workflows.id, current.id), eq(workflows.projectId, projectId)))
  })
}
