import { eq } from 'drizzle-orm'
import { expect } from 'vitest'
import {
  templates,
  workflowExecutions,
  workflowSteps,
  workflows,
  workflowTransitions,
} from '../../../src/db/schema/index.js'
import type {
  StepDetail,
  StepView,
  TransitionView,
  WorkflowDetail,
  WorkflowView,
} from '../../../src/modules/workflows/schemas.js'
import { type Account, callAs, createContact } from '../../helpers/factories.js'
import type { TestServer } from '../../helpers/server.js'

/** A JSON answer: dates as text. */
type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] }

export type WorkflowJson = Json<WorkflowView>
export type StepJson = Json<StepView>
export type TransitionJson = Json<TransitionView>
export type StepDetailJson = Omit<Json<StepDetail>, 'outgoingTransitions' | 'incomingTransitions'> & {
  outgoingTransitions: TransitionJson[]
  incomingTransitions: TransitionJson[]
}
export type WorkflowDetailJson = Omit<Json<WorkflowDetail>, 'steps'> & { steps: StepDetailJson[] }

export const somewhere = { x: 300, y: 200 }
export const delayConfig = { amount: 1, unit: 'hours' }
export const unknownId = '0b7f2c1e-8a4d-4c3b-9f1e-2d3c4b5a6978'

/** The whole standard error body with this code, status and message. */
export function errorBody(code: string, statusCode: number, message: string | unknown) {
  return {
    success: false,
    error: { code, message, statusCode, requestId: expect.any(String) },
    timestamp: expect.any(String),
  }
}

/** A 422 naming exactly these fields. */
export function expectInvalid(response: { statusCode: number; json(): unknown }, fields: string[]) {
  expect(response.statusCode, JSON.stringify(response.json())).toBe(422)
  const body = response.json() as { error: { code: string; errors: { field: string }[] } }
  expect(body.error.code).toBe('VALIDATION_ERROR')
  expect(body.error.errors.map((error) => error.field)).toEqual(fields)
}

/** A workflow through the API, triggered by `eventName`. */
export async function createWorkflow(
  server: TestServer,
  owner: Account,
  body: Record<string, unknown> = {},
): Promise<WorkflowJson> {
  const response = await callAs(server, owner)('POST', '/workflows', { name: 'Welcome', eventName: 'signup', ...body })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<WorkflowJson>()
}

export async function getWorkflow(server: TestServer, owner: Account, id: string): Promise<WorkflowDetailJson> {
  const response = await callAs(server, owner)('GET', `/workflows/${id}`)
  expect(response.statusCode, response.body).toBe(200)
  return response.json<WorkflowDetailJson>()
}

export async function triggerOf(server: TestServer, owner: Account, workflowId: string): Promise<StepDetailJson> {
  const trigger = (await getWorkflow(server, owner, workflowId)).steps.find((step) => step.type === 'TRIGGER')
  if (!trigger) throw new Error('workflow has no trigger')
  return trigger
}

export function postStep(server: TestServer, owner: Account, workflowId: string, body: Record<string, unknown>) {
  return callAs(server, owner)('POST', `/workflows/${workflowId}/steps`, { position: somewhere, ...body })
}

/** A step through the API (a DELAY unless told), not connected unless `autoConnect` says so. */
export async function addStep(
  server: TestServer,
  owner: Account,
  workflowId: string,
  body: Record<string, unknown> = {},
): Promise<StepJson> {
  const response = await postStep(server, owner, workflowId, {
    type: 'DELAY',
    name: 'Wait an hour',
    config: delayConfig,
    autoConnect: false,
    ...body,
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<StepJson>()
}

export function postTransition(server: TestServer, owner: Account, workflowId: string, body: Record<string, unknown>) {
  return callAs(server, owner)('POST', `/workflows/${workflowId}/transitions`, body)
}

export async function connect(
  server: TestServer,
  owner: Account,
  workflowId: string,
  fromStepId: string,
  toStepId: string,
  extra: Record<string, unknown> = {},
): Promise<TransitionJson> {
  const response = await postTransition(server, owner, workflowId, { fromStepId, toStepId, ...extra })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<TransitionJson>()
}

/** A template of the project, written directly: its content is not what these tests are about. */
export async function insertTemplate(server: TestServer, owner: Account, name = 'Welcome mail'): Promise<string> {
  const [row] = await server.ctx.db
    .insert(templates)
    .values({ projectId: owner.project.id, name, subject: 'Hi', body: '<p>Hi</p>', from: 'hello@example.com' })
    .returning({ id: templates.id })
  if (!row) throw new Error('template insert returned nothing')
  return row.id
}

/**
 * An execution standing on the step with this status, written directly: the engine is not part of the definition
 * API, and this is the state it leaves while a contact waits.
 */
export async function insertExecution(
  server: TestServer,
  owner: Account,
  workflowId: string,
  stepId: string,
  status: 'RUNNING' | 'WAITING' | 'COMPLETED' = 'WAITING',
): Promise<string> {
  const contact = await createContact(server, owner)
  const [row] = await server.ctx.db
    .insert(workflowExecutions)
    .values({
      projectId: owner.project.id,
      workflowId,
      contactId: contact.id,
      status,
      triggerKind: 'MANUAL',
      currentStepId: stepId,
    })
    .returning({ id: workflowExecutions.id })
  if (!row) throw new Error('execution insert returned nothing')
  return row.id
}

/** The stored graph, straight from the tables: what an error must leave unchanged. */
export async function storedGraph(server: TestServer, workflowId: string) {
  const db = server.ctx.db
  const [workflow] = await db.select().from(workflows).where(eq(workflows.id, workflowId))
  const steps = await db.select().from(workflowSteps).where(eq(workflowSteps.workflowId, workflowId))
  const transitions = await db.select().from(workflowTransitions).where(eq(workflowTransitions.workflowId, workflowId))
  const byId = <Row extends { id: string }>(rows: Row[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id))
  return { workflow, steps: byId(steps), transitions: byId(transitions) }
}

export function patchWorkflow(server: TestServer, owner: Account, workflowId: string, body: Record<string, unknown>) {
  return callAs(server, owner)('PATCH', `/workflows/${workflowId}`, body)
}
