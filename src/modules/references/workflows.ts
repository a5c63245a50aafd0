import { and, asc, eq, exists, inArray, or, sql } from 'drizzle-orm'
import type { ConditionReferenceTarget } from '../../conditions/index.js'
import type { Executor } from '../../db/client.js'
import { workflowSteps, workflows } from '../../db/schema/index.js'
import type { Reference } from './reference.js'

/** Whether a CONDITION field (`data.plan`, `contact.data.plan.tier`) reads the contact data key. */
function fieldReadsKey(field: unknown, key: string): boolean {
  if (typeof field !== 'string') return false
  const path = field.startsWith('contact.') ? field.slice('contact.'.length) : field
  return path === `data.${key}` || path.startsWith(`data.${key}.`)
}

function stepUsesKey(step: { type: string; config: Record<string, unknown> }, key: string): boolean {
  if (step.type === 'CONDITION') return fieldReadsKey(step.config.field, key)
  const updates = step.config.updates
  return typeof updates === 'object' && updates !== null && Object.hasOwn(updates, key)
}

/** Workflows whose EVENT trigger or a WAIT_FOR_EVENT step names the event. */
async function findWorkflowsOnEvent(db: Executor, projectId: string, eventName: string): Promise<Reference[]> {
  const waitsForIt = db
    .select({ id: workflowSteps.id })
    .from(workflowSteps)
    .where(
      and(
        eq(workflowSteps.workflowId, workflows.id),
        eq(workflowSteps.type, 'WAIT_FOR_EVENT'),
        sql`${workflowSteps.config} ->> 'eventName' = ${eventName}`,
      ),
    )
  return db
    .select({ id: workflows.id, name: workflows.name })
    .from(workflows)
    .where(
      and(
        eq(workflows.projectId, projectId),
        or(and(eq(workflows.triggerType, 'EVENT'), eq(workflows.eventName, eventName)), exists(waitsForIt)),
      ),
    )
    .orderBy(asc(workflows.createdAt), asc(workflows.id))
}

/** Workflows with a CONDITION step testing `data.<key>` or an UPDATE_CONTACT step writing the key. */
async function findWorkflowsOnDataKey(db: Executor, projectId: string, key: string): Promise<Reference[]> {
  const rows = await db
    .select({ id: workflows.id, name: workflows.name, type: workflowSteps.type, config: workflowSteps.config })
    .from(workflowSteps)
    .innerJoin(workflows, eq(workflows.id, workflowSteps.workflowId))
    .where(and(eq(workflows.projectId, projectId), inArray(workflowSteps.type, ['CONDITION', 'UPDATE_CONTACT'])))
    .orderBy(asc(workflows.createdAt), asc(workflows.id))
  const found = new Map<string, Reference>()
  for (const row of rows) if (stepUsesKey(row, key)) found.set(row.id, { id: row.id, name: row.name })
  return [...found.values()]
}

/**
 * The project's workflows that use a contact data key or an event name, oldest first: the `workflows` of the
 * field and event usage answers.
 */
export function findWorkflowsReferencing(
  db: Executor,
  projectId: string,
  target: ConditionReferenceTarget,
): Promise<Reference[]> {
  return 'dataKey' in target
    ? findWorkflowsOnDataKey(db, projectId, target.dataKey)
    : findWorkflowsOnEvent(db, projectId, target.eventName)
}

/** The project's workflows with a step sending the template, oldest first. */
export async function findWorkflowsUsingTemplate(
  db: Executor,
  projectId: string,
  templateId: string,
): Promise<Reference[]> {
  return db
    .selectDistinctOn([workflows.createdAt, workflows.id], { id: workflows.id, name: workflows.name })
    .from(workflowSteps)
    .innerJoin(workflows, eq(workflows.id, workflowSteps.workflowId))
    .where(and(eq(workflows.projectId, projectId), eq(workflowSteps.templateId, templateId)))
    .orderBy(asc(workflows.createdAt), asc(workflows.id))
}
