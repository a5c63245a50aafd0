import { and, asc, eq } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { uuidPattern } from '../../db/keyset.js'
import { workflowSteps, workflowTransitions } from '../../db/schema/index.js'
import { notFound } from '../../errors.js'
import type { StepRow, TransitionRow } from './views.js'

export type Graph = { steps: StepRow[]; edges: TransitionRow[] }

/** A workflow's steps (oldest first) and transitions (by priority); the caller holds the workflow's lock. */
export async function loadGraph(db: Executor, workflowId: string): Promise<Graph> {
  const steps = await db
    .select()
    .from(workflowSteps)
    .where(eq(workflowSteps.workflowId, workflowId))
    .orderBy(asc(workflowSteps.createdAt), asc(workflowSteps.id))
  const edges = await db
    .select()
    .from(workflowTransitions)
    .where(eq(workflowTransitions.workflowId, workflowId))
    .orderBy(asc(workflowTransitions.priority), asc(workflowTransitions.createdAt), asc(workflowTransitions.id))
  return { steps, edges }
}

/** A step of this workflow (whose project the caller checked), or 404. */
export async function findStepRow(db: Executor, workflowId: string, stepId: string): Promise<StepRow> {
  if (!uuidPattern.test(stepId)) throw notFound('Workflow step')
  const [row] = await db
    .select()
    .from(workflowSteps)
    .where(and(eq(workflowSteps.id, stepId), eq(workflowSteps.workflowId, workflowId)))
  if (!row) throw notFound('Workflow step')
  return row
}

/** A transition of this workflow (whose project the caller checked), or 404. */
export async function findTransitionRow(
  db: Executor,
  workflowId: string,
  transitionId: string,
): Promise<TransitionRow> {
  if (!uuidPattern.test(transitionId)) throw notFound('Transition')
  const [row] = await db
    .select()
    .from(workflowTransitions)
    .where(and(eq(workflowTransitions.id, transitionId), eq(workflowTransitions.workflowId, workflowId)))
  if (!row) throw notFound('Transition')
  return row
}
