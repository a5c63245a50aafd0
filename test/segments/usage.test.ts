import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearer, callAs, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createSegment, dataEquals } from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

describe('segments: usage of fields and events', () => {
  it('lists the segments that refer to a data key or an event, and keeps such an event from deletion', async () => {
    const owner = await createAccount(server)
    const contact = await createContact(server, owner, { data: { plan: 'pro' } })
    await server.app.inject({
      method: 'POST',
      url: '/v1/track',
      headers: bearer(owner.publicKey),
      payload: { email: contact.email, event: 'purchased' },
    })
    const byPlan = await createSegment(server, owner, { name: 'By plan', condition: dataEquals('plan', 'pro') })
    const buyers = await createSegment(server, owner, {
      name: 'Buyers',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'event.purchased', operator: 'triggered' }] }] },
    })
    const fieldUsage = await callAs(server, owner)('GET', '/contacts/fields/plan/usage')
    expect(fieldUsage.json()).toEqual({ segments: [{ id: byPlan.id, name: 'By plan' }], campaigns: [], workflows: [] })
    const eventUsage = await callAs(server, owner)('GET', '/events/purchased/usage')
    expect(eventUsage.json()).toEqual({
      event: 'purchased',
      segments: [{ id: buyers.id, name: 'Buyers' }],
      campaigns: [],
      workflows: [],
    })
    const deleted = await callAs(server, owner)('DELETE', '/events/purchased')
    expect(deleted.statusCode).toBe(409)
    const stranger = await createAccount(server)
    expect((await callAs(server, stranger)('GET', '/contacts/fields/plan/usage')).json().segments).toEqual([])
  })
})
