import { and, eq } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { workflowTransitions } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { assertNoExecutionOnStep } from './active.js'
import { editTransaction } from './edit-transaction.js'
import { assertExitFree, reaches, requestedExit } from './graph.js'
import { findStepRow, findTransitionRow, loadGraph } from './load-graph.js'
import type { TransitionCreate, TransitionView } from './schemas.js'
import { findWorkflowRow, toTransitionView } from './views.js'

/**
 * `POST /workflows/:id/transitions`. Both steps must be this workflow's (404 otherwise; the composite foreign keys
 * are the backstop); no self-link, nothing out of an EXIT or into the TRIGGER, one transition per way out of a step
 * (a CONDITION branch, a WAIT_FOR_EVENT outcome, the single way of other steps), and no cycle. Decided under the
 * workflow's lock, so two concurrent requests cannot together break a rule.
 */
export async function createTransition(
  db: Database,
  projectId: string,
  workflowId: string,
  input: TransitionCreate,
): Promise<TransitionView> {
  return editTransaction(db, async (tx) => {
    const workflow = await findWorkflowRow(tx, projectId, workflowId, { lock: true })
    if (input.fromStepId === input.toStepId) throw new AppError('BAD_REQUEST', 'A step cannot be connected to itself')
    const { steps, edges } = await loadGraph(tx, workflow.id)
    const from = steps.find((step) => step.id === input.fromStepId)
    const to = steps.find((step) => step.id === input.toStepId)
    if (!from || !to) throw new AppError('NOT_FOUND', 'One or both steps not found')
    if (to.type === 'TRIGGER') {
      throw new AppError('BAD_REQUEST', 'The trigger step starts the workflow; no transition can lead into it')
    }
    const exit = requestedExit(from, input)
    assertExitFree(
      from,
      exit,
      edges.filter((edge) => edge.fromStepId === from.id),
    )
    // A cycle would let an execution run forever: refuse an edge whose target already leads back to its source.
    if (reaches(edges, to.id, from.id)) {
      throw new AppError('BAD_REQUEST', 'This connection would create a loop in the workflow')
    }
    const [row] = await tx
      .insert(workflowTransitions)
      .values({
        workflowId: workflow.id,
        fromStepId: from.id,
        toStepId: to.id,
        condition: exit.condition,
        waitOutcome: exit.waitOutcome,
        priority: input.priority,
      })
      .returning()
    if (!row) throw new Error('transition insert returned nothing')
    return toTransitionView(row)
  })
}

/**
 * `DELETE /workflows/:id/transitions/:transitionId`: a 409 while an execution stands on the transition's source
 * step, whose next hop the deletion would change (a simpler rule than Plunk's "anything downstream").
 */
export async function deleteTransition(
  db: Database,
  projectId: string,
  workflowId: string,
  transitionId: string,
): Promise<void> {
  await editTransaction(db, async (tx) => {
    const workflow = await findWorkflowRow(tx, projectId, workflowId, { lock: true })
    const transition = await findTransitionRow(tx, workflow.id, transitionId)
    const from = await findStepRow(tx, workflow.id, transition.fromStepId)
    await assertNoExecutionOnStep(tx, workflow, from, 'delete a transition out of this step')
    await tx
      .delete(workflowTransitions)
      .where(and(eq(workflowTransitions.id, transition.id), eq(workflowTransitions.workflowId, workflow.id)))
  })
}
