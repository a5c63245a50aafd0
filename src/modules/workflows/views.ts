import { and, asc, eq } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { uuidPattern } from '../../db/keyset.js'
import { templates, workflowSteps, workflows, workflowTransitions } from '../../db/schema/index.js'
import { notFound } from '../../errors.js'
import type { StepDetail, StepView, TransitionView, WorkflowDetail, WorkflowView } from './schemas.js'

export type WorkflowRow = typeof workflows.$inferSelect
export type StepRow = typeof workflowSteps.$inferSelect
export type TransitionRow = typeof workflowTransitions.$inferSelect

/** The API's workflow: Plunk's fields, without the trigger index's `eventName` copy. */
export function toWorkflowView(row: WorkflowRow): WorkflowView {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    description: row.description,
    triggerType: row.triggerType,
    triggerConfig: row.triggerConfig ?? null,
    enabled: row.enabled,
    allowReentry: row.allowReentry,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

export function toStepView(row: StepRow): StepView {
  return row
}

export function toTransitionView(row: TransitionRow): TransitionView {
  const { workflowId: _workflowId, ...view } = row
  return view
}

/**
 * The project's workflow, or 404 (also for an id that is not a uuid). With `lock`, the row stays locked FOR UPDATE
 * until commit: every change to a workflow's graph takes it first, so two edits never decide on the same stale
 * graph (two requests cannot together close a cycle or take one branch twice), and an execution cannot start or
 * change status meanwhile (its insert's key check and the counters' update wait for the lock).
 */
export async function findWorkflowRow(
  db: Executor,
  projectId: string,
  workflowId: string,
  options: { lock?: boolean } = {},
): Promise<WorkflowRow> {
  if (!uuidPattern.test(workflowId)) throw notFound('Workflow')
  const query = db
    .select()
    .from(workflows)
    .where(and(eq(workflows.id, workflowId), eq(workflows.projectId, projectId)))
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound('Workflow')
  return row
}

function groupBy(rows: TransitionRow[], key: (row: TransitionRow) => string): Map<string, TransitionView[]> {
  const groups = new Map<string, TransitionView[]>()
  for (const row of rows) {
    const group = groups.get(key(row))
    if (group) group.push(toTransitionView(row))
    else groups.set(key(row), [toTransitionView(row)])
  }
  return groups
}

/** `GET /workflows/:id`: the workflow and its steps (oldest first), each with its template and transitions. */
export async function getWorkflow(db: Executor, projectId: string, workflowId: string): Promise<WorkflowDetail> {
  const workflow = await findWorkflowRow(db, projectId, workflowId)
  const [steps, transitions] = await Promise.all([
    db
      .select({ step: workflowSteps, template: { id: templates.id, name: templates.name } })
      .from(workflowSteps)
      .leftJoin(templates, eq(templates.id, workflowSteps.templateId))
      .where(eq(workflowSteps.workflowId, workflow.id))
      .orderBy(asc(workflowSteps.createdAt), asc(workflowSteps.id)),
    db
      .select()
      .from(workflowTransitions)
      .where(eq(workflowTransitions.workflowId, workflow.id))
      .orderBy(asc(workflowTransitions.priority), asc(workflowTransitions.createdAt), asc(workflowTransitions.id)),
  ])
  const outgoing = groupBy(transitions, (transition) => transition.fromStepId)
  const incoming = groupBy(transitions, (transition) => transition.toStepId)
  const detail = (row: (typeof steps)[number]): StepDetail => ({
    ...toStepView(row.step),
    template: row.template,
    outgoingTransitions: outgoing.get(row.step.id) ?? [],
    incomingTransitions: incoming.get(row.step.id) ?? [],
  })
  return { ...toWorkflowView(workflow), steps: steps.map(detail) }
}
