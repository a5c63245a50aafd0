import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { workflowExecutions } from '../../../src/db/schema/index.js'
import { type Account, createAccount } from '../../helpers/factories.js'
import { notFoundBody } from '../../helpers/scoping.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import {
  addStep,
  connect,
  createWorkflow,
  delayConfig,
  errorBody,
  expectInvalid,
  insertExecution,
  insertTemplate,
  storedGraph,
  triggerOf,
  unknownId,
} from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

const isPro = { field: 'data.plan', operator: 'equals', value: 'pro' }

/** The route as Plunk's MCP calls it: JSON, `Bearer sk_…`. */
function insertStep(account: Account, workflowId: string, transitionId: string, body: Record<string, unknown>) {
  return server.app.inject({
    method: 'POST',
    url: `/workflows/${workflowId}/transitions/${transitionId}/insert-step`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.secretKey}` },
    payload: JSON.stringify(body),
  })
}

/** The stored transitions as `from→to [branch|outcome]`, by step name. */
async function edgesOf(workflowId: string): Promise<string[]> {
  const { steps, transitions } = await storedGraph(server, workflowId)
  const name = (id: string) => steps.find((step) => step.id === id)?.name
  return transitions
    .map((edge) => {
      const way = edge.condition?.branch ?? edge.waitOutcome
      return `${name(edge.fromStepId)}→${name(edge.toStepId)}${way ? ` [${way}]` : ''}`
    })
    .sort()
}

/** A workflow Trigger → Pro? and Pro? —no→ Later; the `no` transition is returned. */
async function branchingWorkflow(owner: Account) {
  const workflow = await createWorkflow(server, owner, { eventName: 'signup' })
  const trigger = await triggerOf(server, owner, workflow.id)
  const check = await addStep(server, owner, workflow.id, { type: 'CONDITION', name: 'Pro?', config: isPro })
  const later = await addStep(server, owner, workflow.id, { name: 'Later', position: { x: 100, y: 500 } })
  await connect(server, owner, workflow.id, trigger.id, check.id)
  const no = await connect(server, owner, workflow.id, check.id, later.id, { condition: { branch: 'no' } })
  return { workflow, trigger, check, later, no }
}

describe('insert-step', () => {
  it('puts a new step between the two ends of a transition, which keeps its id and branch', async () => {
    const owner = await createAccount(server)
    const { workflow, check, later, no } = await branchingWorkflow(owner)
    const response = await insertStep(owner, workflow.id, no.id, {
      type: 'DELAY',
      name: 'Wait',
      config: delayConfig,
    })
    expect(response.statusCode, response.body).toBe(201)
    const step = response.json()
    expect(step).toEqual({
      id: expect.any(String),
      workflowId: workflow.id,
      type: 'DELAY',
      name: 'Wait',
      position: { x: (check.position.x + later.position.x) / 2, y: (check.position.y + later.position.y) / 2 },
      config: delayConfig,
      templateId: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect(await edgesOf(workflow.id)).toEqual(['Pro?→Wait [no]', 'Trigger: signup→Pro?', 'Wait→Later'])
    const kept = (await storedGraph(server, workflow.id)).transitions.find((edge) => edge.id === no.id)
    expect(kept).toMatchObject({ fromStepId: check.id, toStepId: step.id, condition: { branch: 'no' } })
  })

  it('a new CONDITION goes on by `yes`, a new WAIT_FOR_EVENT by each of its outcomes', async () => {
    const owner = await createAccount(server)
    const { workflow, no } = await branchingWorkflow(owner)
    const inner = await insertStep(owner, workflow.id, no.id, {
      type: 'CONDITION',
      name: 'Big?',
      config: { field: 'event.total', operator: 'greaterThan', value: 100 },
      position: { x: 1, y: 2 },
    })
    expect(inner.statusCode, inner.body).toBe(201)
    expect(inner.json().position).toEqual({ x: 1, y: 2 })
    const onward = (await storedGraph(server, workflow.id)).transitions.find(
      (edge) => edge.fromStepId === inner.json().id,
    )
    const wait = await insertStep(owner, workflow.id, onward?.id ?? '', {
      type: 'WAIT_FOR_EVENT',
      name: 'Paid?',
      config: { eventName: 'paid', timeout: 3600 },
    })
    expect(wait.statusCode, wait.body).toBe(201)
    expect(await edgesOf(workflow.id)).toEqual([
      'Big?→Paid? [yes]',
      'Paid?→Later [EVENT]',
      'Paid?→Later [TIMEOUT]',
      'Pro?→Big? [no]',
      'Trigger: signup→Pro?',
    ])
  })

  it('an execution waiting on the far end stays where it is; one on the near end is a 409, nothing changed', async () => {
    const owner = await createAccount(server)
    const { workflow, check, later, no } = await branchingWorkflow(owner)
    const farEnd = await insertExecution(server, owner, workflow.id, later.id, 'WAITING')
    const body = { type: 'DELAY', name: 'Wait', config: delayConfig }
    expect((await insertStep(owner, workflow.id, no.id, body)).statusCode).toBe(201)
    const [waiting] = await server.ctx.db.select().from(workflowExecutions).where(eq(workflowExecutions.id, farEnd))
    expect(waiting).toMatchObject({ status: 'WAITING', currentStepId: later.id })

    await insertExecution(server, owner, workflow.id, check.id, 'RUNNING')
    const before = await storedGraph(server, workflow.id)
    const refused = await insertStep(owner, workflow.id, no.id, { ...body, name: 'Wait more' })
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toEqual({
      ...errorBody(
        'CONFLICT',
        409,
        'Cannot insert a step after this step while 1 execution(s) are on step "Pro?". Cancel them or wait for them ' +
          'to move on.',
      ),
      error: expect.objectContaining({ details: { stepId: check.id, activeExecutions: 1 } }),
    })
    expect(await storedGraph(server, workflow.id)).toEqual(before)
  })

  it('refuses a TRIGGER or an EXIT, a missing field, a bad config and a template of another project', async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const { workflow, no } = await branchingWorkflow(owner)
    const before = await storedGraph(server, workflow.id)
    for (const type of ['TRIGGER', 'EXIT']) {
      const response = await insertStep(owner, workflow.id, no.id, { type, name: 'X', config: {} })
      expect(response.json()).toEqual(
        errorBody('BAD_REQUEST', 400, `A ${type} step cannot be inserted between two steps`),
      )
    }
    const missing = await insertStep(owner, workflow.id, no.id, { type: 'DELAY', name: 'Wait' })
    expect(missing.json()).toEqual(errorBody('BAD_REQUEST', 400, 'Type, name, and config are required'))
    expectInvalid(await insertStep(owner, workflow.id, no.id, { type: 'DELAY', name: 'Wait', config: {} }), [
      'config.amount',
      'config.unit',
    ])
    const theirTemplate = await insertTemplate(server, stranger)
    const template = await insertStep(owner, workflow.id, no.id, {
      type: 'SEND_EMAIL',
      name: 'Mail',
      config: {},
      templateId: theirTemplate,
    })
    expect(template.json()).toEqual(notFoundBody('Template'))
    expect(await storedGraph(server, workflow.id)).toEqual(before)
  })

  it("another workflow's transition, or another project's workflow, is 404 and changes nothing", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const { workflow, no } = await branchingWorkflow(owner)
    const other = await createWorkflow(server, owner)
    const before = await storedGraph(server, workflow.id)
    const body = { type: 'DELAY', name: 'Wait', config: delayConfig }
    for (const id of [no.id, unknownId, 'nope']) {
      expect((await insertStep(owner, other.id, id, body)).json()).toEqual(notFoundBody('Transition'))
    }
    expect((await insertStep(stranger, workflow.id, no.id, body)).json()).toEqual(notFoundBody('Workflow'))
    expect(await storedGraph(server, workflow.id)).toEqual(before)
    expect((await storedGraph(server, other.id)).steps).toHaveLength(1)
  })
})
