import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadWorkflowCounts } from '../../../src/modules/workflows/counts.js'
import { bearer, callAs, createAccount } from '../../helpers/factories.js'
import { notFoundBody } from '../../helpers/scoping.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import {
  addStep,
  connect,
  createWorkflow,
  errorBody,
  expectInvalid,
  getWorkflow,
  insertExecution,
  insertTemplate,
  patchWorkflow,
  storedGraph,
  triggerOf,
  type WorkflowJson,
} from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

const workflowShape = (owner: { project: { id: string } }, fields: Record<string, unknown>) => ({
  id: expect.any(String),
  projectId: owner.project.id,
  description: null,
  triggerType: 'EVENT',
  enabled: false,
  allowReentry: false,
  createdAt: expect.any(String),
  updatedAt: expect.any(String),
  ...fields,
})

describe('workflows: create and read', () => {
  it('creates a disabled EVENT workflow (even when asked enabled) with its TRIGGER step, answering the bare workflow', async () => {
    const owner = await createAccount(server)
    const response = await callAs(server, owner)('POST', '/workflows', {
      name: 'Welcome',
      eventName: ' signup ',
      description: 'New users',
      enabled: true,
      allowReentry: true,
    })
    expect(response.statusCode).toBe(201)
    const workflow = response.json<WorkflowJson>()
    expect(workflow).toEqual(
      workflowShape(owner, {
        name: 'Welcome',
        description: 'New users',
        triggerConfig: { eventName: 'signup' },
        allowReentry: true,
      }),
    )
    const detail = await getWorkflow(server, owner, workflow.id)
    expect(detail).toEqual({
      ...workflow,
      steps: [
        {
          id: expect.any(String),
          workflowId: workflow.id,
          type: 'TRIGGER',
          name: 'Trigger: signup',
          position: { x: 100, y: 100 },
          config: { eventName: 'signup' },
          templateId: null,
          template: null,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          outgoingTransitions: [],
          incomingTransitions: [],
        },
      ],
    })
    expect((await storedGraph(server, workflow.id)).workflow?.eventName).toBe('signup')
  })

  it('answers a missing name or event with Plunk messages as 400s, and wrong types as 422s with the path', async () => {
    const owner = await createAccount(server)
    const call = callAs(server, owner)
    const noName = await call('POST', '/workflows', { eventName: 'signup' })
    expect(noName.statusCode).toBe(400)
    expect(noName.json()).toEqual(errorBody('BAD_REQUEST', 400, 'Name is required'))
    const noEvent = await call('POST', '/workflows', { name: 'Welcome', eventName: '  ' })
    expect(noEvent.json()).toEqual(errorBody('BAD_REQUEST', 400, 'Event name is required'))
    expectInvalid(await call('POST', '/workflows', { name: 42, eventName: 'signup' }), ['name'])
    expectInvalid(await call('POST', '/workflows', { name: 'x'.repeat(256), eventName: 'signup' }), ['name'])
    expectInvalid(await call('POST', '/workflows', { name: 'W', eventName: 'signup', allowReentry: 'yes' }), [
      'allowReentry',
    ])
    // A reserved name nothing ever emits could never start the workflow.
    expectInvalid(await call('POST', '/workflows', { name: 'W', eventName: 'email.nope' }), ['eventName'])
    const list = await call('GET', '/workflows')
    expect(list.json().total).toBe(0)
  })

  it('refuses malformed JSON with 400 and creates nothing', async () => {
    const owner = await createAccount(server)
    const response = await server.app.inject({
      method: 'POST',
      url: '/workflows',
      headers: { ...bearer(owner.secretKey), 'content-type': 'application/json' },
      payload: '{"name": "W", "eventName": ',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().error.code).toBe('INVALID_JSON')
    expect((await callAs(server, owner)('GET', '/workflows')).json().total).toBe(0)
  })

  it('accepts an internal event as a trigger', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner, { eventName: 'email.bounce' })
    expect(workflow.triggerConfig).toEqual({ eventName: 'email.bounce' })
  })

  it('gets steps oldest first with their template and both kinds of transitions', async () => {
    const owner = await createAccount(server)
    const templateId = await insertTemplate(server, owner, 'Hello mail')
    const workflow = await createWorkflow(server, owner)
    const trigger = await triggerOf(server, owner, workflow.id)
    const send = await addStep(server, owner, workflow.id, {
      type: 'SEND_EMAIL',
      name: 'Say hello',
      config: {},
      templateId,
    })
    const transition = await connect(server, owner, workflow.id, trigger.id, send.id)
    const detail = await getWorkflow(server, owner, workflow.id)
    expect(detail.steps.map((step) => step.name)).toEqual(['Trigger: signup', 'Say hello'])
    expect(detail.steps[0]?.outgoingTransitions).toEqual([transition])
    expect(detail.steps[1]).toMatchObject({
      template: { id: templateId, name: 'Hello mail' },
      config: { recipient: { type: 'CONTACT' }, templateId },
      incomingTransitions: [transition],
      outgoingTransitions: [],
    })
    expect(transition).toEqual({
      id: expect.any(String),
      fromStepId: trigger.id,
      toStepId: send.id,
      condition: null,
      waitOutcome: null,
      priority: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
  })

  it('answers 404 for an unknown id and for one that is not a uuid', async () => {
    const owner = await createAccount(server)
    for (const id of ['0b7f2c1e-8a4d-4c3b-9f1e-2d3c4b5a6978', 'not-a-uuid']) {
      const response = await callAs(server, owner)('GET', `/workflows/${id}`)
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Workflow'))
    }
  })
})

describe('workflows: list', () => {
  it('pages with _count from steps and the execution counters, filters by status and search, sorts by steps', async () => {
    const owner = await createAccount(server)
    const welcome = await createWorkflow(server, owner, { name: 'Welcome', description: 'greets new users' })
    const cart = await createWorkflow(server, owner, { name: 'Cart', eventName: 'cart.abandoned' })
    const churn = await createWorkflow(server, owner, { name: 'Churn', eventName: 'cancelled' })
    await addStep(server, owner, cart.id)
    await addStep(server, owner, cart.id)
    await addStep(server, owner, churn.id)
    const trigger = await triggerOf(server, owner, welcome.id)
    await insertExecution(server, owner, welcome.id, trigger.id, 'COMPLETED')
    await insertExecution(server, owner, welcome.id, trigger.id, 'WAITING')
    await patchWorkflow(server, owner, churn.id, { enabled: true })

    const call = callAs(server, owner)
    const all = await call('GET', '/workflows')
    expect(all.statusCode).toBe(200)
    expect(all.json()).toEqual({
      data: [
        {
          ...workflowShape(owner, { name: 'Churn', triggerConfig: { eventName: 'cancelled' }, enabled: true }),
          _count: { steps: 2, executions: 0 },
        },
        {
          ...workflowShape(owner, { name: 'Cart', triggerConfig: { eventName: 'cart.abandoned' } }),
          _count: { steps: 3, executions: 0 },
        },
        {
          ...workflowShape(owner, {
            name: 'Welcome',
            description: 'greets new users',
            triggerConfig: { eventName: 'signup' },
          }),
          _count: { steps: 1, executions: 2 },
        },
      ],
      total: 3,
      page: 1,
      pageSize: 20,
      totalPages: 1,
    })
    const names = async (query: string) =>
      (await call('GET', `/workflows?${query}`)).json<{ data: WorkflowJson[] }>().data.map((item) => item.name)
    expect(await names('status=active')).toEqual(['Churn'])
    expect(await names('status=disabled')).toEqual(['Cart', 'Welcome'])
    expect(await names('search=GREETS')).toEqual(['Welcome'])
    expect(await names('sort=steps&dir=asc')).toEqual(['Welcome', 'Churn', 'Cart'])
    expect(await names('sort=name&dir=asc&limit=5&cursor=x')).toEqual(['Cart', 'Churn', 'Welcome'])
    expect(await names('sort=bogus&dir=sideways')).toEqual(['Churn', 'Cart', 'Welcome'])
    const paged = (await call('GET', '/workflows?page=2&pageSize=2')).json()
    expect(paged).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 })
    expect(paged.data.map((item: WorkflowJson) => item.name)).toEqual(['Welcome'])
    expect((await call('GET', '/workflows?pageSize=500')).json().pageSize).toBe(100)
  })

  it('answers a bad status filter or page with 400 naming the field', async () => {
    const owner = await createAccount(server)
    const badStatus = await callAs(server, owner)('GET', '/workflows?status=running')
    expect(badStatus.statusCode).toBe(400)
    expect(badStatus.json().error.errors).toEqual([expect.objectContaining({ field: 'status' })])
    const badPage = await callAs(server, owner)('GET', '/workflows?page=0')
    expect(badPage.statusCode).toBe(400)
    expect(badPage.json().error.errors).toEqual([expect.objectContaining({ field: 'page' })])
  })
})

describe('workflows: update', () => {
  it('changes metadata and answers the workflow with its project name', async () => {
    const owner = await createAccount(server, 'Shop')
    const workflow = await createWorkflow(server, owner)
    const response = await patchWorkflow(server, owner, workflow.id, {
      name: 'Onboarding',
      description: 'three mails',
      allowReentry: true,
      enabled: true,
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual(
      workflowShape(owner, {
        name: 'Onboarding',
        description: 'three mails',
        allowReentry: true,
        enabled: true,
        triggerConfig: { eventName: 'signup' },
        project: { name: 'Shop' },
      }),
    )
    const disabled = await patchWorkflow(server, owner, workflow.id, { enabled: false, description: null })
    expect(disabled.json()).toMatchObject({ enabled: false, description: null, name: 'Onboarding' })
  })

  it('a new event rewrites the trigger config, the TRIGGER step and the indexed event name', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const response = await patchWorkflow(server, owner, workflow.id, { triggerConfig: { eventName: 'registered' } })
    expect(response.statusCode).toBe(200)
    expect(response.json().triggerConfig).toEqual({ eventName: 'registered' })
    const trigger = await triggerOf(server, owner, workflow.id)
    expect(trigger).toMatchObject({ name: 'Trigger: registered', config: { eventName: 'registered' } })
    expect((await storedGraph(server, workflow.id)).workflow?.eventName).toBe('registered')
  })

  it('a MANUAL trigger keeps its config and leaves the event index', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const response = await patchWorkflow(server, owner, workflow.id, { triggerType: 'MANUAL', triggerConfig: null })
    expect(response.json()).toMatchObject({ triggerType: 'MANUAL', triggerConfig: null })
    expect((await storedGraph(server, workflow.id)).workflow?.eventName).toBeNull()
  })

  it('refuses a bad trigger with 422 at its path and changes nothing', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const before = await storedGraph(server, workflow.id)
    expectInvalid(await patchWorkflow(server, owner, workflow.id, { triggerConfig: { eventName: 7 } }), [
      'triggerConfig.eventName',
    ])
    expectInvalid(await patchWorkflow(server, owner, workflow.id, { triggerConfig: { other: 'x' } }), [
      'triggerConfig.eventName',
    ])
    expectInvalid(await patchWorkflow(server, owner, workflow.id, { triggerType: 'CRON' }), ['triggerType'])
    expectInvalid(await patchWorkflow(server, owner, workflow.id, { enabled: 'true' }), ['enabled'])
    expect(await storedGraph(server, workflow.id)).toEqual(before)
  })

  it('409 for a trigger change while enabled with active executions; metadata still changes', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const trigger = await triggerOf(server, owner, workflow.id)
    await patchWorkflow(server, owner, workflow.id, { enabled: true })
    await insertExecution(server, owner, workflow.id, trigger.id, 'RUNNING')
    const before = await storedGraph(server, workflow.id)
    const refused = await patchWorkflow(server, owner, workflow.id, { triggerConfig: { eventName: 'other' } })
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toMatchObject({ code: 'CONFLICT', details: { activeExecutions: 1 } })
    expect(await storedGraph(server, workflow.id)).toEqual(before)
    // The same trigger again is no change.
    const same = await patchWorkflow(server, owner, workflow.id, { triggerConfig: { eventName: 'signup' } })
    expect(same.statusCode).toBe(200)
    expect((await patchWorkflow(server, owner, workflow.id, { name: 'Renamed' })).statusCode).toBe(200)
    // Disabled, the trigger can change even with executions still running.
    await patchWorkflow(server, owner, workflow.id, { enabled: false })
    expect((await patchWorkflow(server, owner, workflow.id, { triggerConfig: { eventName: 'x' } })).statusCode).toBe(
      200,
    )
  })

  it('refuses to enable a workflow whose SEND_EMAIL step lost its template, naming the step', async () => {
    const owner = await createAccount(server)
    const templateId = await insertTemplate(server, owner)
    const workflow = await createWorkflow(server, owner)
    const send = await addStep(server, owner, workflow.id, {
      type: 'SEND_EMAIL',
      name: 'Hello',
      config: {},
      templateId,
    })
    const unlink = await callAs(server, owner)('PATCH', `/workflows/${workflow.id}/steps/${send.id}`, {
      templateId: null,
    })
    expect(unlink.statusCode).toBe(200)
    const refused = await patchWorkflow(server, owner, workflow.id, { enabled: true })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().error).toMatchObject({
      code: 'BAD_REQUEST',
      message: 'The workflow cannot be enabled until these steps are fixed: "Hello": no template',
      details: { steps: [{ stepId: send.id, name: 'Hello', problem: 'no template' }] },
    })
    expect((await storedGraph(server, workflow.id)).workflow?.enabled).toBe(false)
  })
})

describe('workflows: delete', () => {
  it('deletes with 204, taking steps and transitions along', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    await addStep(server, owner, workflow.id, { autoConnect: true })
    const response = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}`)
    expect(response.statusCode).toBe(204)
    expect(response.body).toBe('')
    expect(await storedGraph(server, workflow.id)).toEqual({ workflow: undefined, steps: [], transitions: [] })
    expect((await callAs(server, owner)('GET', `/workflows/${workflow.id}`)).statusCode).toBe(404)
  })

  it('409 while an execution is RUNNING or WAITING, also when disabled; finished ones do not block', async () => {
    const owner = await createAccount(server)
    for (const status of ['RUNNING', 'WAITING'] as const) {
      const workflow = await createWorkflow(server, owner)
      const trigger = await triggerOf(server, owner, workflow.id)
      await insertExecution(server, owner, workflow.id, trigger.id, status)
      const response = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}`)
      expect(response.statusCode, status).toBe(409)
      expect(response.json()).toEqual({
        ...errorBody(
          'CONFLICT',
          409,
          'Cannot delete workflow: it has 1 active execution(s). Cancel them or wait for them to complete first.',
        ),
        error: expect.objectContaining({ details: { activeExecutions: 1 } }),
      })
      expect((await storedGraph(server, workflow.id)).workflow).toBeDefined()
    }
    const done = await createWorkflow(server, owner)
    await insertExecution(server, owner, done.id, (await triggerOf(server, owner, done.id)).id, 'COMPLETED')
    expect((await loadWorkflowCounts(server.ctx.db, done.id)).COMPLETED).toBe(1)
    expect((await callAs(server, owner)('DELETE', `/workflows/${done.id}`)).statusCode).toBe(204)
    // Its counts went with it.
    const left = await server.ctx.db.execute(
      sql`SELECT 1 FROM workflow_execution_counts WHERE workflow_id = ${done.id}`,
    )
    expect(left.rows).toEqual([])
  })
})

describe('workflows: duplicate', () => {
  it('copies steps and transitions onto new ids, disabled, named "(Copy)"', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    await patchWorkflow(server, owner, workflow.id, { enabled: true })
    await addStep(server, owner, workflow.id, { autoConnect: true, name: 'First' })
    await addStep(server, owner, workflow.id, { autoConnect: true, name: 'Second' })
    const response = await callAs(server, owner)('POST', `/workflows/${workflow.id}/duplicate`)
    expect(response.statusCode).toBe(201)
    const copy = response.json<WorkflowJson>()
    expect(copy).toMatchObject({ name: 'Welcome (Copy)', enabled: false, triggerConfig: { eventName: 'signup' } })
    const original = await getWorkflow(server, owner, workflow.id)
    const copied = await getWorkflow(server, owner, copy.id)
    expect(copied.steps.map((step) => step.name)).toEqual(['Trigger: signup', 'First', 'Second'])
    const copiedIds = new Set(copied.steps.map((step) => step.id))
    for (const step of original.steps) expect(copiedIds.has(step.id)).toBe(false)
    const edges = (detail: typeof original) =>
      detail.steps.flatMap((step) =>
        step.outgoingTransitions.map((edge) => {
          const to = detail.steps.find((target) => target.id === edge.toStepId)
          return `${step.name} -> ${to?.name}`
        }),
      )
    expect(edges(copied)).toEqual(edges(original))
    expect(edges(copied)).toEqual(['Trigger: signup -> First', 'First -> Second'])
  })
})
