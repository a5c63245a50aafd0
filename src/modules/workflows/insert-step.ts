import { and, eq } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { workflowTransitions } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { assertNoExecutionOnStep } from './active.js'
import { editTransaction } from './edit-transaction.js'
import { freeExits } from './graph.js'
import { loadGraph } from './load-graph.js'
import type { StepInsert, StepView } from './schemas.js'
import { connect, exitsToLink, insertStepRow } from './step-edits.js'
import { findWorkflowRow, type StepRow, toStepView } from './views.js'

function halfway(from: StepRow, to: StepRow): StepRow['position'] {
  return { x: (from.position.x + to.position.x) / 2, y: (from.position.y + to.position.y) / 2 }
}

/**
 * `POST /workflows/:id/transitions/:transitionId/insert-step` (plunk-compat §4): A→B becomes A→NEW→B in one
 * transaction. The transition itself is re-pointed to NEW, so it keeps its id, branch, outcome and priority; NEW
 * leads on to B the way a new link leaves a step (a CONDITION on `yes`, a WAIT_FOR_EVENT by every outcome). TRIGGER
 * and EXIT cannot sit in the middle of a flow (400). As for deleting the transition, a 409 while an execution stands
 * on A: its next hop would change under it.
 */
export async function insertStepOnTransition(
  db: Database,
  projectId: string,
  workflowId: string,
  transitionId: string,
  input: StepInsert,
): Promise<StepView> {
  return editTransaction(db, async (tx) => {
    const workflow = await findWorkflowRow(tx, projectId, workflowId, { lock: true })
    const graph = await loadGraph(tx, workflow.id)
    const transition = graph.edges.find((edge) => edge.id === transitionId)
    const from = graph.steps.find((step) => step.id === transition?.fromStepId)
    const to = graph.steps.find((step) => step.id === transition?.toStepId)
    if (!transition || !from || !to) throw new AppError('NOT_FOUND', 'Transition not found')
    if (input.type === 'TRIGGER' || input.type === 'EXIT') {
      throw new AppError('BAD_REQUEST', `A ${input.type} step cannot be inserted between two steps`)
    }
    await assertNoExecutionOnStep(tx, workflow, from, 'insert a step after this step')
    const step = await insertStepRow(tx, projectId, workflow.id, graph, {
      ...input,
      position: input.position ?? halfway(from, to),
    })
    await tx
      .update(workflowTransitions)
      .set({ toStepId: step.id, updatedAt: new Date() })
      .where(and(eq(workflowTransitions.id, transition.id), eq(workflowTransitions.workflowId, workflow.id)))
    await connect(tx, workflow.id, step, exitsToLink(step, freeExits(step, [])), to.id)
    return toStepView(step)
  })
}
