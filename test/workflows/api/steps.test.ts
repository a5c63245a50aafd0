import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callAs, createAccount } from '../../helpers/factories.js'
import { notFoundBody } from '../../helpers/scoping.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import {
  addStep,
  connect,
  createWorkflow,
  delayConfig,
  errorBody,
  expectInvalid,
  getWorkflow,
  insertExecution,
  insertTemplate,
  patchWorkflow,
  postStep,
  somewhere,
  storedGraph,
  triggerOf,
  unknownId,
} from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

/** `from -> to [branch]` for every transition, to compare graphs by name. */
async function edgesByName(owner: Awaited<ReturnType<typeof createAccount>>, workflowId: string): Promise<string[]> {
  const detail = await getWorkflow(server, owner, workflowId)
  const nameOf = (id: string) => detail.steps.find((step) => step.id === id)?.name
  return detail.steps.flatMap((step) =>
    step.outgoingTransitions.map((edge) => {
      const label = edge.condition?.branch ?? edge.waitOutcome
      return `${step.name} -> ${nameOf(edge.toStepId)}${label ? ` [${label}]` : ''}`
    }),
  )
}

describe('steps: add', () => {
  it('answers the bare step with 201, its config as its type reads it, linked after the last open step', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const response = await postStep(server, owner, workflow.id, {
      type: 'DELAY',
      name: 'Wait a day',
      config: { amount: 1, unit: 'days' },
    })
    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      id: expect.any(String),
      workflowId: workflow.id,
      type: 'DELAY',
      name: 'Wait a day',
      position: somewhere,
      config: { amount: 1, unit: 'days' },
      templateId: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    const exit = await postStep(server, owner, workflow.id, { type: 'EXIT', name: 'Done', config: {} })
    expect(exit.json().config).toEqual({ reason: 'exit_step' })
    expect(await edgesByName(owner, workflow.id)).toEqual(['Trigger: signup -> Wait a day', 'Wait a day -> Done'])
  })

  it('auto-connects after an EXIT-ended path onto a free CONDITION branch, and every free outcome of a wait', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const condition = { field: 'data.plan', operator: 'equals', value: 'pro' }
    await addStep(server, owner, workflow.id, { type: 'CONDITION', name: 'Pro?', config: condition, autoConnect: true })
    await addStep(server, owner, workflow.id, { type: 'EXIT', name: 'Stop', config: {}, autoConnect: true })
    // The EXIT closes its path: the next step takes the condition's free branch.
    await addStep(server, owner, workflow.id, {
      type: 'WAIT_FOR_EVENT',
      name: 'Wait for purchase',
      config: { eventName: 'purchase', timeout: 3600 },
      autoConnect: true,
    })
    await addStep(server, owner, workflow.id, { name: 'Pause', autoConnect: true })
    expect(await edgesByName(owner, workflow.id)).toEqual([
      'Trigger: signup -> Pro?',
      'Pro? -> Stop [yes]',
      'Pro? -> Wait for purchase [no]',
      'Wait for purchase -> Pause [EVENT]',
      'Wait for purchase -> Pause [TIMEOUT]',
    ])
  })

  it('autoConnect false adds a step on its own', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    await addStep(server, owner, workflow.id, { autoConnect: false })
    expect(await edgesByName(owner, workflow.id)).toEqual([])
  })

  it('refuses bad configs with 422 naming the config field, and adds nothing', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const before = await storedGraph(server, workflow.id)
    const add = (type: string, config: unknown) => postStep(server, owner, workflow.id, { type, name: 'Step', config })
    expectInvalid(await add('DELAY', { amount: -1, unit: 'hours' }), ['config.amount'])
    expectInvalid(await add('DELAY', { amount: 3650, unit: 'days' }), ['config.amount'])
    expectInvalid(await add('DELAY', { amount: 1, unit: 'weeks' }), ['config.unit'])
    expectInvalid(await add('DELAY', { amount: '1', unit: 'hours' }), ['config.amount'])
    expectInvalid(await add('WAIT_FOR_EVENT', { eventName: 'email.nope' }), ['config.eventName'])
    expectInvalid(await add('WAIT_FOR_EVENT', { eventName: 'paid', timeout: 0 }), ['config.timeout'])
    expectInvalid(await add('CONDITION', { field: 'data.plan', operator: 'resembles' }), ['config.operator'])
    expectInvalid(await add('UPDATE_CONTACT', {}), ['config'])
    expectInvalid(await add('SEND_EMAIL', { recipient: { type: 'CUSTOM', customEmail: 'nope' } }), [
      'config.recipient.customEmail',
    ])
    expectInvalid(await add('TELEPORT', {}), ['type'])
    expectInvalid(await postStep(server, owner, workflow.id, { type: 'DELAY', name: 'x', config: [] }), ['config'])
    expectInvalid(
      await postStep(server, owner, workflow.id, {
        type: 'DELAY',
        name: 'x',
        config: delayConfig,
        position: { x: 'a', y: 1 },
      }),
      ['position.x'],
    )
    expectInvalid(
      await postStep(server, owner, workflow.id, { type: 'DELAY', name: 'x'.repeat(300), config: delayConfig }),
      ['name'],
    )
    const huge = await add('UPDATE_CONTACT', { updates: { note: 'x'.repeat(70_000) } })
    expectInvalid(huge, ['config'])
    expect(await storedGraph(server, workflow.id)).toEqual(before)
  })

  it('a WEBHOOK step needs a static http(s) scheme and a literal method', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const before = await storedGraph(server, workflow.id)
    const hook = (config: Record<string, unknown>) =>
      postStep(server, owner, workflow.id, { type: 'WEBHOOK', name: 'Notify', config })
    expectInvalid(await hook({ url: '{{data.endpoint}}/hook' }), ['config.url'])
    expectInvalid(await hook({ url: 'ftp://example.com/hook' }), ['config.url'])
    expectInvalid(await hook({ url: 'https://example.com/hook', method: '{{data.method}}' }), ['config.method'])
    expect(await storedGraph(server, workflow.id)).toEqual(before)
    const saved = await hook({ url: 'https://example.com/hooks/{{event.id}}', headers: { 'X-Token': 'abc' } })
    expect(saved.statusCode, saved.body).toBe(201)
    expect(saved.json().config).toEqual({
      url: 'https://example.com/hooks/{{event.id}}',
      method: 'POST',
      headers: { 'X-Token': 'abc' },
    })
  })

  it('answers missing required fields with Plunk message as a 400', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const response = await callAs(server, owner)('POST', `/workflows/${workflow.id}/steps`, {
      type: 'DELAY',
      name: 'x',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual(errorBody('BAD_REQUEST', 400, 'Type, name, position, and config are required'))
  })

  it('a SEND_EMAIL step needs a template of the project: 422 without, 404 for another project one', async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const theirs = await insertTemplate(server, stranger)
    const workflow = await createWorkflow(server, owner)
    const before = await storedGraph(server, workflow.id)
    const send = (body: Record<string, unknown>) =>
      postStep(server, owner, workflow.id, { type: 'SEND_EMAIL', name: 'Mail', config: {}, ...body })
    expectInvalid(await send({}), ['templateId'])
    expectInvalid(await send({ templateId: 'not-a-uuid' }), ['templateId'])
    const foreign = await send({ templateId: theirs })
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json()).toEqual(notFoundBody('Template'))
    const viaConfig = await send({ config: { templateId: theirs } })
    expect(viaConfig.statusCode).toBe(404)
    const onDelay = await postStep(server, owner, workflow.id, {
      type: 'DELAY',
      name: 'x',
      config: delayConfig,
      templateId: await insertTemplate(server, owner),
    })
    expectInvalid(onDelay, ['templateId'])
    expect(await storedGraph(server, workflow.id)).toEqual(before)
    // The deprecated config copy alone is read as the template.
    const mine = await insertTemplate(server, owner)
    const copied = await send({ config: { templateId: mine } })
    expect(copied.statusCode).toBe(201)
    expect(copied.json()).toMatchObject({ templateId: mine, config: { templateId: mine } })
  })

  it('a second TRIGGER is a 400', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const response = await postStep(server, owner, workflow.id, {
      type: 'TRIGGER',
      name: 'Again',
      config: { eventName: 'x' },
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual(
      errorBody('BAD_REQUEST', 400, 'Workflow already has a trigger step. Only one trigger is allowed per workflow.'),
    )
  })
})

describe('steps: update', () => {
  it('changes name, position and config, 200 with the bare step', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const step = await addStep(server, owner, workflow.id)
    const response = await callAs(server, owner)('PATCH', `/workflows/${workflow.id}/steps/${step.id}`, {
      name: 'Wait two days',
      position: { x: 1, y: 2 },
      config: { amount: 2, unit: 'days' },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      ...step,
      name: 'Wait two days',
      position: { x: 1, y: 2 },
      config: { amount: 2, unit: 'days' },
      updatedAt: expect.any(String),
    })
  })

  it('validates the config for the step type (422 at its path) and changes nothing', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const step = await addStep(server, owner, workflow.id)
    const before = await storedGraph(server, workflow.id)
    const patch = (body: Record<string, unknown>) =>
      callAs(server, owner)('PATCH', `/workflows/${workflow.id}/steps/${step.id}`, body)
    expectInvalid(await patch({ config: { amount: 0, unit: 'hours' }, name: 'renamed' }), ['config.amount'])
    expectInvalid(await patch({ position: 'left' }), ['position'])
    expect(await storedGraph(server, workflow.id)).toEqual(before)
  })

  it('links and unlinks a template; another project template is a 404', async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const first = await insertTemplate(server, owner, 'First')
    const second = await insertTemplate(server, owner, 'Second')
    const workflow = await createWorkflow(server, owner)
    const step = await addStep(server, owner, workflow.id, {
      type: 'SEND_EMAIL',
      name: 'M',
      config: {},
      templateId: first,
    })
    const patch = (body: Record<string, unknown>) =>
      callAs(server, owner)('PATCH', `/workflows/${workflow.id}/steps/${step.id}`, body)
    expect((await patch({ templateId: second })).json()).toMatchObject({
      templateId: second,
      config: { templateId: second },
    })
    const foreign = await patch({ templateId: await insertTemplate(server, stranger) })
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json()).toEqual(notFoundBody('Template'))
    const unlinked = await patch({ templateId: null })
    expect(unlinked.statusCode).toBe(200)
    expect(unlinked.json().templateId).toBeNull()
    expect(unlinked.json().config).toEqual({ recipient: { type: 'CONTACT' } })
  })

  it('refuses a config that leaves a transition without its way out', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const wait = await addStep(server, owner, workflow.id, {
      type: 'WAIT_FOR_EVENT',
      name: 'Wait',
      config: { eventName: 'paid', timeout: 60 },
    })
    const later = await addStep(server, owner, workflow.id)
    await connect(server, owner, workflow.id, wait.id, later.id, { waitOutcome: 'TIMEOUT' })
    const response = await callAs(server, owner)('PATCH', `/workflows/${workflow.id}/steps/${wait.id}`, {
      config: { eventName: 'paid' },
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().error.message).toBe(
      'The new config leaves the TIMEOUT route of "Wait" with no way out; delete that transition first',
    )
  })

  it('409 for a config or template change while enabled with active runs; name and position still change', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const trigger = await triggerOf(server, owner, workflow.id)
    const step = await addStep(server, owner, workflow.id)
    await patchWorkflow(server, owner, workflow.id, { enabled: true })
    await insertExecution(server, owner, workflow.id, trigger.id, 'WAITING')
    const before = await storedGraph(server, workflow.id)
    const patch = (body: Record<string, unknown>) =>
      callAs(server, owner)('PATCH', `/workflows/${workflow.id}/steps/${step.id}`, body)
    const refused = await patch({ config: { amount: 5, unit: 'minutes' } })
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error.message).toBe(
      'Cannot modify step configuration while the workflow has 1 active execution(s). Disable the workflow first or ' +
        'wait for them to complete. You can still update the step name and position.',
    )
    expect(await storedGraph(server, workflow.id)).toEqual(before)
    expect((await patch({ name: 'Still fine', position: { x: 0, y: 0 } })).statusCode).toBe(200)
    expect((await patch({ config: delayConfig })).statusCode).toBe(200)
  })

  it('the TRIGGER step config is changed through the workflow, not the step', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const trigger = await triggerOf(server, owner, workflow.id)
    const response = await callAs(server, owner)('PATCH', `/workflows/${workflow.id}/steps/${trigger.id}`, {
      config: { eventName: 'other' },
    })
    expect(response.statusCode).toBe(400)
    const moved = await callAs(server, owner)('PATCH', `/workflows/${workflow.id}/steps/${trigger.id}`, {
      position: { x: 5, y: 5 },
    })
    expect(moved.json().position).toEqual({ x: 5, y: 5 })
  })

  it('404 for a step of another workflow, or an id that is not one', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const other = await createWorkflow(server, owner)
    const step = await addStep(server, owner, other.id)
    for (const stepId of [step.id, unknownId, 'nope']) {
      const response = await callAs(server, owner)('PATCH', `/workflows/${workflow.id}/steps/${stepId}`, { name: 'x' })
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Workflow step'))
    }
  })
})

describe('steps: delete', () => {
  async function linearFlow(owner: Awaited<ReturnType<typeof createAccount>>) {
    const workflow = await createWorkflow(server, owner)
    const first = await addStep(server, owner, workflow.id, { name: 'First', autoConnect: true })
    const middle = await addStep(server, owner, workflow.id, { name: 'Middle', autoConnect: true })
    const last = await addStep(server, owner, workflow.id, { name: 'Last', autoConnect: true })
    return { workflow, first, middle, last }
  }

  it('without splice removes only the step and its transitions', async () => {
    const owner = await createAccount(server)
    const { workflow, middle } = await linearFlow(owner)
    const response = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/steps/${middle.id}`)
    expect(response.statusCode).toBe(204)
    const detail = await getWorkflow(server, owner, workflow.id)
    expect(detail.steps.map((step) => step.name)).toEqual(['Trigger: signup', 'First', 'Last'])
    expect(await edgesByName(owner, workflow.id)).toEqual(['Trigger: signup -> First'])
  })

  it('with splice=true reconnects the neighbours', async () => {
    const owner = await createAccount(server)
    const { workflow, middle } = await linearFlow(owner)
    const response = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/steps/${middle.id}?splice=true`)
    expect(response.statusCode).toBe(204)
    expect(await edgesByName(owner, workflow.id)).toEqual(['Trigger: signup -> First', 'First -> Last'])
  })

  it('splice keeps the branch of each incoming transition', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const check = await addStep(server, owner, workflow.id, {
      type: 'CONDITION',
      name: 'Pro?',
      config: { field: 'data.plan', operator: 'equals', value: 'pro' },
      autoConnect: true,
    })
    const yes = await addStep(server, owner, workflow.id, { name: 'Yes path' })
    const after = await addStep(server, owner, workflow.id, { name: 'After' })
    await connect(server, owner, workflow.id, check.id, yes.id, { condition: { branch: 'yes' } })
    await connect(server, owner, workflow.id, yes.id, after.id)
    await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/steps/${yes.id}?splice=true`)
    expect(await edgesByName(owner, workflow.id)).toEqual(['Trigger: signup -> Pro?', 'Pro? -> After [yes]'])
  })

  it('refuses the TRIGGER and a spliced CONDITION with 400s', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const trigger = await triggerOf(server, owner, workflow.id)
    const check = await addStep(server, owner, workflow.id, {
      type: 'CONDITION',
      name: 'Pro?',
      config: { field: 'data.plan', operator: 'exists' },
    })
    const before = await storedGraph(server, workflow.id)
    const noTrigger = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/steps/${trigger.id}`)
    expect(noTrigger.json()).toEqual(
      errorBody('BAD_REQUEST', 400, 'Cannot delete the trigger step. Every workflow must have a trigger.'),
    )
    const noSplice = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/steps/${check.id}?splice=true`)
    expect(noSplice.statusCode).toBe(400)
    expect(await storedGraph(server, workflow.id)).toEqual(before)
    expect((await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/steps/${check.id}`)).statusCode).toBe(204)
  })

  it('409 when an execution waits on the step, spliced or not, enabled or not; nothing changes', async () => {
    const owner = await createAccount(server)
    const { workflow, middle } = await linearFlow(owner)
    await insertExecution(server, owner, workflow.id, middle.id, 'WAITING')
    const before = await storedGraph(server, workflow.id)
    for (const query of ['', '?splice=true']) {
      const response = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/steps/${middle.id}${query}`)
      expect(response.statusCode, query).toBe(409)
      expect(response.json().error).toMatchObject({
        code: 'CONFLICT',
        details: { stepId: middle.id, activeExecutions: 1 },
      })
    }
    expect(await storedGraph(server, workflow.id)).toEqual(before)
  })

  it('an execution elsewhere, or a finished one on the step, does not block', async () => {
    const owner = await createAccount(server)
    const { workflow, first, middle } = await linearFlow(owner)
    await insertExecution(server, owner, workflow.id, first.id, 'RUNNING')
    await insertExecution(server, owner, workflow.id, middle.id, 'COMPLETED')
    const response = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/steps/${middle.id}?splice=true`)
    expect(response.statusCode).toBe(204)
  })

  it('404 for an unknown step', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const response = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/steps/${unknownId}`)
    expect(response.json()).toEqual(notFoundBody('Workflow step'))
  })
})
