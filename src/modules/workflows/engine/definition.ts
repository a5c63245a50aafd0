import { asc, eq } from 'drizzle-orm'
import type { Executor } from '../../../db/client.js'
import { workflowSteps, workflows, workflowTransitions } from '../../../db/schema/index.js'

export type StepRow = typeof workflowSteps.$inferSelect
type TransitionRow = typeof workflowTransitions.$inferSelect

/** What a step ended with, for picking the transition out of it. */
export type StepOutcome = { branch?: string; waitOutcome?: 'EVENT' | 'TIMEOUT' }

/** A workflow's graph as the engine walks it: steps by id, and each step's way out in priority order. */
export type WorkflowDefinition = {
  workflow: { id: string; name: string }
  steps: ReadonlyMap<string, StepRow>
  outgoing: ReadonlyMap<string, readonly TransitionRow[]>
}

export async function loadDefinition(db: Executor, workflowId: string): Promise<WorkflowDefinition> {
  // One after another: inside a transaction they share one connection.
  const [workflow] = await db
    .select({ id: workflows.id, name: workflows.name })
    .from(workflows)
    .where(eq(workflows.id, workflowId))
  const steps = await db.select().from(workflowSteps).where(eq(workflowSteps.workflowId, workflowId))
  const transitions = await db
    .select()
    .from(workflowTransitions)
    .where(eq(workflowTransitions.workflowId, workflowId))
    .orderBy(asc(workflowTransitions.priority), asc(workflowTransitions.createdAt), asc(workflowTransitions.id))
  const outgoing = new Map<string, TransitionRow[]>()
  for (const transition of transitions) {
    outgoing.set(transition.fromStepId, [...(outgoing.get(transition.fromStepId) ?? []), transition])
  }
  return {
    workflow: workflow ?? { id: workflowId, name: '' },
    steps: new Map(steps.map((step) => [step.id, step])),
    outgoing,
  }
}

/**
 * The step after `stepId` given its outcome, or undefined when the execution is complete. A CONDITION takes the
 * transition of its branch; a WAIT_FOR_EVENT the one of its outcome, else one naming no outcome (Plunk: it serves
 * both); any other step its first transition by priority.
 */
export function nextStep(definition: WorkflowDefinition, stepId: string, outcome: StepOutcome): StepRow | undefined {
  const transitions = definition.outgoing.get(stepId) ?? []
  const chosen =
    outcome.branch !== undefined
      ? transitions.find((transition) => transition.condition?.branch === outcome.branch)
      : outcome.waitOutcome !== undefined
        ? (transitions.find((transition) => transition.waitOutcome === outcome.waitOutcome) ??
          transitions.find((transition) => transition.waitOutcome === null))
        : transitions[0]
  return chosen && definition.steps.get(chosen.toStepId)
}
