import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm'
import type { Executor } from '../../../db/client.js'
import {
  contacts,
  workflowExecutions,
  workflowStepExecutions,
  workflowSteps,
  workflows,
} from '../../../db/schema/index.js'
import { notFound } from '../../../errors.js'
import type { ExecutionListQuery } from './schemas.js'
import { executionViewColumns } from './view.js'

const listColumns = {
  ...executionViewColumns,
  contact: { id: contacts.id, email: contacts.email },
  currentStep: { id: workflowSteps.id, name: workflowSteps.name, type: workflowSteps.type },
}

/** The workflow, of this project, or 404: every executions route starts here. */
export async function findProjectWorkflow(db: Executor, projectId: string, workflowId: string) {
  const [workflow] = await db
    .select({ id: workflows.id, name: workflows.name })
    .from(workflows)
    .where(and(eq(workflows.id, workflowId), eq(workflows.projectId, projectId)))
  if (!workflow) throw notFound('Workflow')
  return workflow
}

function selectExecutions(db: Executor, where: SQL | undefined) {
  return db
    .select(listColumns)
    .from(workflowExecutions)
    .innerJoin(contacts, eq(contacts.id, workflowExecutions.contactId))
    .leftJoin(workflowSteps, eq(workflowSteps.id, workflowExecutions.currentStepId))
    .where(where)
}

/** `GET /workflows/:id/executions`: newest first, optionally of one status (Plunk's `executions` key). */
export async function listExecutions(db: Executor, projectId: string, workflowId: string, query: ExecutionListQuery) {
  await findProjectWorkflow(db, projectId, workflowId)
  const where = and(
    eq(workflowExecutions.workflowId, workflowId),
    query.status ? eq(workflowExecutions.status, query.status) : undefined,
  )
  const [rows, [total]] = await Promise.all([
    selectExecutions(db, where)
      .orderBy(desc(workflowExecutions.startedAt), desc(workflowExecutions.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ total: count() }).from(workflowExecutions).where(where),
  ])
  const matches = total?.total ?? 0
  return {
    executions: rows,
    total: matches,
    page: query.page,
    pageSize: query.pageSize,
    totalPages: Math.ceil(matches / query.pageSize),
  }
}

/** `GET /workflows/:id/executions/:executionId`: with the workflow and every step it ran, in order. */
export async function getExecution(db: Executor, projectId: string, workflowId: string, executionId: string) {
  const workflow = await findProjectWorkflow(db, projectId, workflowId)
  const [row] = await selectExecutions(
    db,
    and(eq(workflowExecutions.id, executionId), eq(workflowExecutions.workflowId, workflowId)),
  )
  if (!row) throw notFound('Execution')
  const history = await db
    .select()
    .from(workflowStepExecutions)
    .where(eq(workflowStepExecutions.executionId, executionId))
    .orderBy(asc(workflowStepExecutions.createdAt), asc(workflowStepExecutions.id))
  const stepExecutions = history.map(({ stepType, stepName, ...stepExecution }) => ({
    ...stepExecution,
    step: { id: stepExecution.stepId ?? '', name: stepName, type: stepType },
  }))
  return { ...row, workflow, stepExecutions }
}
