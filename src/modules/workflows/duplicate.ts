import { randomUUID } from 'node:crypto'
import { asc, eq } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { workflowSteps, workflows, workflowTransitions } from '../../db/schema/index.js'
import { editTransaction } from './edit-transaction.js'
import type { WorkflowView } from './schemas.js'
import { findWorkflowRow, toWorkflowView } from './views.js'

/**
 * `POST /workflows/:id/duplicate`: "<name> (Copy)", disabled, with the steps and transitions mapped onto new ids.
 * Executions and counters are not copied. The copies' creation times keep the original order (steps are listed,
 * and auto-connected, in that order), a millisecond apart.
 */
export async function duplicateWorkflow(db: Database, projectId: string, workflowId: string): Promise<WorkflowView> {
  return editTransaction(db, async (tx) => {
    const original = await findWorkflowRow(tx, projectId, workflowId, { lock: true })
    const [steps, transitions] = await Promise.all([
      tx
        .select()
        .from(workflowSteps)
        .where(eq(workflowSteps.workflowId, original.id))
        .orderBy(asc(workflowSteps.createdAt), asc(workflowSteps.id)),
      tx.select().from(workflowTransitions).where(eq(workflowTransitions.workflowId, original.id)),
    ])
    const [copy] = await tx
      .insert(workflows)
      .values({
        projectId,
        name: `${original.name} (Copy)`.slice(0, 255),
        description: original.description,
        triggerType: original.triggerType,
        triggerConfig: original.triggerConfig,
        eventName: original.eventName,
        enabled: false,
        allowReentry: original.allowReentry,
      })
      .returning()
    if (!copy) throw new Error('workflow insert returned nothing')
    const newIds = new Map(steps.map((step) => [step.id, randomUUID()]))
    const start = Date.now()
    const idOf = (stepId: string) => newIds.get(stepId) ?? stepId
    if (steps.length > 0) {
      await tx.insert(workflowSteps).values(
        steps.map((step, index) => ({
          ...step,
          id: idOf(step.id),
          workflowId: copy.id,
          createdAt: new Date(start + index),
          updatedAt: new Date(start + index),
        })),
      )
    }
    if (transitions.length > 0) {
      await tx.insert(workflowTransitions).values(
        transitions.map(({ id: _id, createdAt: _createdAt, updatedAt: _updatedAt, ...transition }) => ({
          ...transition,
          workflowId: copy.id,
          fromStepId: idOf(transition.fromStepId),
          toStepId: idOf(transition.toStepId),
        })),
      )
    }
    return toWorkflowView(copy)
  })
}
