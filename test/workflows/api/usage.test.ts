import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearer, callAs, createAccount, createContact } from '../../helpers/factories.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { addStep, createWorkflow, insertTemplate } from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

describe('usage answers list workflows', () => {
  it('a data key is used by CONDITION fields (data.x, contact.data.x.y) and UPDATE_CONTACT updates', async () => {
    const owner = await createAccount(server)
    const byCondition = await createWorkflow(server, owner, { name: 'By condition' })
    await addStep(server, owner, byCondition.id, {
      type: 'CONDITION',
      name: 'Pro?',
      config: { field: 'contact.data.plan.tier', operator: 'exists' },
    })
    const byUpdate = await createWorkflow(server, owner, { name: 'By update' })
    await addStep(server, owner, byUpdate.id, {
      type: 'UPDATE_CONTACT',
      name: 'Upgrade',
      config: { updates: { plan: 'pro' } },
    })
    const byMulti = await createWorkflow(server, owner, { name: 'By multi' })
    await addStep(server, owner, byMulti.id, {
      type: 'CONDITION',
      name: 'Which plan',
      config: { mode: 'multi', field: 'data.plan', branches: [{ id: 'a', name: 'A', operator: 'exists' }] },
    })
    const unrelated = await createWorkflow(server, owner, { name: 'Unrelated' })
    await addStep(server, owner, unrelated.id, {
      type: 'CONDITION',
      name: 'Planet?',
      config: { field: 'data.planet', operator: 'exists' },
    })
    await addStep(server, owner, unrelated.id, {
      type: 'UPDATE_CONTACT',
      name: 'Nested',
      config: { updates: { settings: { plan: 'x' } } },
    })
    const usage = await callAs(server, owner)('GET', '/contacts/fields/plan/usage')
    expect(usage.json()).toEqual({
      segments: [],
      campaigns: [],
      workflows: [
        { id: byCondition.id, name: 'By condition' },
        { id: byUpdate.id, name: 'By update' },
        { id: byMulti.id, name: 'By multi' },
      ],
    })
  })

  it('an event is used by an EVENT trigger and by WAIT_FOR_EVENT steps, which keeps its events from deletion', async () => {
    const owner = await createAccount(server)
    const contact = await createContact(server, owner)
    for (const event of ['paid', 'signup']) {
      await server.app.inject({
        method: 'POST',
        url: '/v1/track',
        headers: bearer(owner.publicKey),
        payload: { email: contact.email, event },
      })
    }
    const triggered = await createWorkflow(server, owner, { name: 'On paid', eventName: 'paid' })
    const waiting = await createWorkflow(server, owner, { name: 'Waits for paid' })
    await addStep(server, owner, waiting.id, { type: 'WAIT_FOR_EVENT', name: 'Wait', config: { eventName: 'paid' } })
    const manual = await createWorkflow(server, owner, { name: 'Was on paid', eventName: 'paid' })
    await callAs(server, owner)('PATCH', `/workflows/${manual.id}`, { triggerType: 'MANUAL' })

    const usage = await callAs(server, owner)('GET', '/events/paid/usage')
    expect(usage.json()).toEqual({
      event: 'paid',
      segments: [],
      campaigns: [],
      workflows: [
        { id: triggered.id, name: 'On paid' },
        { id: waiting.id, name: 'Waits for paid' },
      ],
    })
    const deleted = await callAs(server, owner)('DELETE', '/events/paid')
    expect(deleted.statusCode).toBe(409)
    expect((await callAs(server, owner)('GET', '/events/signup/usage')).json().workflows).toEqual([
      { id: waiting.id, name: 'Waits for paid' },
    ])
  })

  it('a template is used by SEND_EMAIL steps, and cannot be deleted while it is', async () => {
    const owner = await createAccount(server)
    const templateId = await insertTemplate(server, owner)
    const workflow = await createWorkflow(server, owner, { name: 'Sender' })
    const send = await addStep(server, owner, workflow.id, { type: 'SEND_EMAIL', name: 'Mail', config: {}, templateId })
    await addStep(server, owner, workflow.id, { type: 'SEND_EMAIL', name: 'Again', config: {}, templateId })
    const call = callAs(server, owner)
    expect((await call('GET', `/templates/${templateId}/usage`)).json()).toEqual({
      campaigns: [],
      workflows: [{ id: workflow.id, name: 'Sender' }],
    })
    const refused = await call('DELETE', `/templates/${templateId}`)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toMatchObject({
      code: 'CONFLICT',
      message: 'Cannot delete template: 1 workflow(s) send it. Remove it from their steps first.',
      details: { workflows: [{ id: workflow.id, name: 'Sender' }] },
    })
    expect((await call('GET', `/templates/${templateId}`)).statusCode).toBe(200)
    await call('DELETE', `/workflows/${workflow.id}/steps/${send.id}`)
    await call('DELETE', `/workflows/${workflow.id}`)
    expect((await call('GET', `/templates/${templateId}/usage`)).json().workflows).toEqual([])
    expect((await call('DELETE', `/templates/${templateId}`)).statusCode).toBe(204)
  })

  it("another project's workflows never appear", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const workflow = await createWorkflow(server, owner, { eventName: 'paid' })
    await addStep(server, owner, workflow.id, { type: 'UPDATE_CONTACT', name: 'U', config: { updates: { plan: 1 } } })
    const call = callAs(server, stranger)
    expect((await call('GET', '/contacts/fields/plan/usage')).json().workflows).toEqual([])
    expect((await call('GET', '/events/paid/usage')).json().workflows).toEqual([])
  })
})
