import { and, eq } from 'drizzle-orm'
import type { Database, Transaction } from '../../db/client.js'
import { workflowSteps, workflowTransitions } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { assertNoActiveRuns, assertNoExecutionOnStep } from './active.js'
import { editTransaction } from './edit-transaction.js'
import { assertTransitionsFit, freeExits, type StepExit } from './graph.js'
import { findStepRow, type Graph, loadGraph } from './load-graph.js'
import { sameJson } from './same-json.js'
import type { StepCreate, StepUpdate, StepView } from './schemas.js'
import { parseStepConfig } from './step-config/config-by-type.js'
import { assertProjectTemplate, assertTemplateAllowed, templateRequired, withTemplateCopy } from './step-template.js'
import { findWorkflowRow, type StepRow, toStepView } from './views.js'

/** Enough for any flow a person draws; keeps each graph check a small in-memory walk. */
const maxStepsPerWorkflow = 500

/**
 * Where a new step is attached: the newest step that still has a way out free (a leaf, a CONDITION branch or a
 * WAIT_FOR_EVENT outcome nobody takes). A CONDITION gives its first free branch (yes before no); a WAIT_FOR_EVENT
 * every free outcome, EVENT first, as Plunk does when it inserts a step.
 */
function autoConnection(graph: Graph): { from: StepRow; exits: StepExit[] } | undefined {
  for (const step of [...graph.steps].reverse()) {
    const free = freeExits(
      step,
      graph.edges.filter((edge) => edge.fromStepId === step.id),
    )
    if (free.length === 0) continue
    return { from: step, exits: exitsToLink(step, free) }
  }
  return undefined
}

/** Of a step's free ways out, those a new link takes: every WAIT_FOR_EVENT outcome, else the first (a CONDITION's `yes`). */
export function exitsToLink(step: StepRow, free: StepExit[]): StepExit[] {
  return step.type === 'WAIT_FOR_EVENT' ? free : free.slice(0, 1)
}

export async function connect(tx: Transaction, workflowId: string, from: StepRow, exits: StepExit[], toStepId: string) {
  await tx.insert(workflowTransitions).values(
    exits.map((exit) => ({
      workflowId,
      fromStepId: from.id,
      toStepId,
      condition: exit.condition,
      waitOutcome: exit.waitOutcome,
      priority: exit.waitOutcome === 'TIMEOUT' ? 1 : 0,
    })),
  )
}

/** `POST /workflows/:id/steps`: a step whose config suits its type, linked after the newest open step by default. */
export async function addStep(
  db: Database,
  projectId: string,
  workflowId: string,
  input: StepCreate,
): Promise<StepView> {
  return editTransaction(db, async (tx) => {
    const workflow = await findWorkflowRow(tx, projectId, workflowId, { lock: true })
    const graph = await loadGraph(tx, workflow.id)
    const step = await insertStepRow(tx, projectId, workflow.id, graph, input)
    const attach = input.autoConnect && input.type !== 'TRIGGER' ? autoConnection(graph) : undefined
    if (attach) await connect(tx, workflow.id, attach.from, attach.exits, step.id)
    return toStepView(step)
  })
}

/**
 * A new step of the workflow (whose lock the caller holds, `graph` read under it), unconnected: one TRIGGER at most,
 * a config that suits the type, and a template of the project where the type takes one.
 */
export async function insertStepRow(
  tx: Transaction,
  projectId: string,
  workflowId: string,
  graph: Graph,
  input: Pick<StepCreate, 'type' | 'name' | 'position' | 'config' | 'templateId'>,
): Promise<StepRow> {
  if (input.type === 'TRIGGER' && graph.steps.some((step) => step.type === 'TRIGGER')) {
    throw new AppError('BAD_REQUEST', 'Workflow already has a trigger step. Only one trigger is allowed per workflow.')
  }
  if (graph.steps.length >= maxStepsPerWorkflow) {
    throw new AppError('BAD_REQUEST', `A workflow may have at most ${maxStepsPerWorkflow} steps`)
  }
  const config = parseStepConfig(input.type, input.config)
  const templateId = input.templateId ?? (typeof config.templateId === 'string' ? config.templateId : null)
  assertTemplateAllowed(input.type, templateId)
  if (input.type === 'SEND_EMAIL' && !templateId) throw templateRequired()
  if (templateId) await assertProjectTemplate(tx, projectId, templateId)
  const [step] = await tx
    .insert(workflowSteps)
    .values({
      workflowId,
      type: input.type,
      name: input.name,
      position: input.position,
      config: withTemplateCopy(input.type, config, templateId),
      templateId,
    })
    .returning()
  if (!step) throw new Error('step insert returned nothing')
  return step
}

/** The template the update leaves on the step: `templateId` decides, else a changed deprecated config copy. */
function nextTemplateId(step: StepRow, input: StepUpdate, config: Record<string, unknown>): string | null {
  if (input.templateId !== undefined) return input.templateId
  const copy = input.config !== undefined && typeof config.templateId === 'string' ? config.templateId : undefined
  return copy ?? step.templateId
}

/**
 * `PATCH /workflows/:id/steps/:stepId`. Name and position always change; config and template are a 409 while the
 * workflow is enabled with active executions (Plunk's rule). A new config must keep the step's transitions
 * meaningful (no transition on a branch or timeout that no longer exists).
 */
export async function updateStep(
  db: Database,
  projectId: string,
  workflowId: string,
  stepId: string,
  input: StepUpdate,
): Promise<StepView> {
  return editTransaction(db, async (tx) => {
    const workflow = await findWorkflowRow(tx, projectId, workflowId, { lock: true })
    const step = await findStepRow(tx, workflow.id, stepId)
    const content: Partial<StepContent> =
      input.config === undefined && input.templateId === undefined ? {} : await nextContent(tx, projectId, step, input)
    if (content.config && !sameJson(content.config, step.config)) {
      await assertNoActiveRuns(tx, workflow, 'modify step configuration', 'the step name and position')
      const { edges } = await loadGraph(tx, workflow.id)
      assertTransitionsFit(
        { ...step, config: content.config },
        edges.filter((edge) => edge.fromStepId === step.id),
      )
    }
    if (content.templateId !== undefined && content.templateId !== step.templateId) {
      await assertNoActiveRuns(tx, workflow, 'change the template of a step', 'the step name and position')
      if (!content.templateId && step.type === 'SEND_EMAIL' && workflow.enabled) {
        throw new AppError('BAD_REQUEST', 'An enabled workflow cannot have a SEND_EMAIL step without a template')
      }
    }
    const [row] = await tx
      .update(workflowSteps)
      .set({
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.position === undefined ? {} : { position: input.position }),
        ...content,
        updatedAt: new Date(),
      })
      .where(eq(workflowSteps.id, step.id))
      .returning()
    if (!row) throw new Error('step update returned nothing')
    return toStepView(row)
  })
}

type StepContent = { config: Record<string, unknown>; templateId: string | null }

/** The config (checked for the step's type) and template an update leaves; 404 for another project's template. */
async function nextContent(tx: Transaction, projectId: string, step: StepRow, input: StepUpdate): Promise<StepContent> {
  if (input.config !== undefined && step.type === 'TRIGGER') {
    throw new AppError(
      'BAD_REQUEST',
      "The trigger step's config follows the workflow's trigger: change it with PATCH /workflows/:id",
    )
  }
  const parsed = input.config === undefined ? step.config : parseStepConfig(step.type, input.config)
  const templateId = nextTemplateId(step, input, parsed)
  assertTemplateAllowed(step.type, templateId)
  if (templateId && templateId !== step.templateId) await assertProjectTemplate(tx, projectId, templateId)
  return { config: withTemplateCopy(step.type, parsed, templateId), templateId }
}

/**
 * `DELETE /workflows/:id/steps/:stepId`. Without `splice`, only the step and its transitions go (DESIGN §4; Plunk
 * also deletes everything downstream). With `splice`, each transition into the step is re-pointed to the step's
 * first child (lowest priority) before it goes, so the flow continues around it; a branching step cannot be spliced.
 * Either is a 409 while an execution stands on the step.
 */
export async function deleteStep(
  db: Database,
  projectId: string,
  workflowId: string,
  stepId: string,
  options: { splice: boolean },
): Promise<void> {
  await editTransaction(db, async (tx) => {
    const workflow = await findWorkflowRow(tx, projectId, workflowId, { lock: true })
    const step = await findStepRow(tx, workflow.id, stepId)
    if (step.type === 'TRIGGER') {
      throw new AppError('BAD_REQUEST', 'Cannot delete the trigger step. Every workflow must have a trigger.')
    }
    if (options.splice && (step.type === 'CONDITION' || step.type === 'WAIT_FOR_EVENT')) {
      throw new AppError(
        'BAD_REQUEST',
        `Cannot splice a branching step (${step.type}) out of the flow: its ways out lead to different steps. ` +
          'Delete it without splice=true and connect its neighbours yourself.',
      )
    }
    await assertNoExecutionOnStep(tx, workflow, step, options.splice ? 'splice this step out' : 'delete this step')
    if (options.splice) {
      const { edges } = await loadGraph(tx, workflow.id)
      const child = edges.find((edge) => edge.fromStepId === step.id)
      if (child) {
        await tx
          .update(workflowTransitions)
          .set({ toStepId: child.toStepId, updatedAt: new Date() })
          .where(and(eq(workflowTransitions.workflowId, workflow.id), eq(workflowTransitions.toStepId, step.id)))
      }
    }
    // The transitions' composite keys cascade: the step's own transitions go with it.
    await tx.delete(workflowSteps).where(and(eq(workflowSteps.id, step.id), eq(workflowSteps.workflowId, workflow.id)))
  })
}
