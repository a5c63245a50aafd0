import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callAs, createAccount } from '../../helpers/factories.js'
import { itRequiresTheSecretKey, notFoundBody } from '../../helpers/scoping.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { addStep, createWorkflow, delayConfig, somewhere, storedGraph, triggerOf, unknownId } from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

describe('workflows: scoping', () => {
  itRequiresTheSecretKey(
    () => server,
    [
      ['GET', '/workflows'],
      ['GET', '/workflows/fields'],
      ['POST', '/workflows', { name: 'W', eventName: 'e' }],
      ['GET', `/workflows/${unknownId}`],
      ['PATCH', `/workflows/${unknownId}`, { name: 'x' }],
      ['DELETE', `/workflows/${unknownId}`],
      ['POST', `/workflows/${unknownId}/duplicate`],
      ['POST', `/workflows/${unknownId}/steps`, { type: 'DELAY', name: 'x', position: somewhere, config: delayConfig }],
      ['PATCH', `/workflows/${unknownId}/steps/${unknownId}`, { name: 'x' }],
      ['DELETE', `/workflows/${unknownId}/steps/${unknownId}`],
      ['POST', `/workflows/${unknownId}/transitions`, { fromStepId: unknownId, toStepId: unknownId }],
      ['DELETE', `/workflows/${unknownId}/transitions/${unknownId}`],
    ],
  )

  it("another project's key sees none of it, changes none of it, and gets the same 404 as for nothing", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const trigger = await triggerOf(server, owner, workflow.id)
    const step = await addStep(server, owner, workflow.id, { autoConnect: true })
    const graph = await storedGraph(server, workflow.id)
    const [transition] = graph.transitions
    const call = callAs(server, stranger)

    const list = await call('GET', '/workflows')
    expect(list.json()).toMatchObject({ data: [], total: 0 })
    const base = `/workflows/${workflow.id}`
    const requests: [Parameters<typeof call>[0], string, object?][] = [
      ['GET', base],
      ['PATCH', base, { name: 'Taken', enabled: true }],
      ['DELETE', base],
      ['POST', `${base}/duplicate`],
      ['POST', `${base}/steps`, { type: 'DELAY', name: 'x', position: somewhere, config: delayConfig }],
      ['PATCH', `${base}/steps/${step.id}`, { name: 'x' }],
      ['DELETE', `${base}/steps/${step.id}?splice=true`],
      ['POST', `${base}/transitions`, { fromStepId: step.id, toStepId: trigger.id }],
      ['DELETE', `${base}/transitions/${transition?.id}`],
    ]
    for (const [method, url, payload] of requests) {
      const response = await call(method, url, payload)
      expect(response.statusCode, `${method} ${url}`).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Workflow'))
    }
    expect(await storedGraph(server, workflow.id)).toEqual(graph)
    expect((await call('GET', '/workflows')).json().total).toBe(0)
  })

  it("a step or transition of another project's workflow is not found through one's own workflow", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const theirs = await createWorkflow(server, owner)
    const theirStep = await addStep(server, owner, theirs.id, { autoConnect: true })
    const [theirTransition] = (await storedGraph(server, theirs.id)).transitions
    const mine = await createWorkflow(server, stranger)
    const myTrigger = await triggerOf(server, stranger, mine.id)
    const call = callAs(server, stranger)
    const before = await storedGraph(server, theirs.id)

    const patched = await call('PATCH', `/workflows/${mine.id}/steps/${theirStep.id}`, { name: 'x' })
    expect(patched.json()).toEqual(notFoundBody('Workflow step'))
    const deleted = await call('DELETE', `/workflows/${mine.id}/steps/${theirStep.id}`)
    expect(deleted.json()).toEqual(notFoundBody('Workflow step'))
    const linked = await call('POST', `/workflows/${mine.id}/transitions`, {
      fromStepId: myTrigger.id,
      toStepId: theirStep.id,
    })
    expect(linked.statusCode).toBe(404)
    expect(linked.json().error.message).toBe('One or both steps not found')
    const unlinked = await call('DELETE', `/workflows/${mine.id}/transitions/${theirTransition?.id}`)
    expect(unlinked.json()).toEqual(notFoundBody('Transition'))
    expect(await storedGraph(server, theirs.id)).toEqual(before)
  })
})
