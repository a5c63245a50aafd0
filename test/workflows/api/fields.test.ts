import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearer, callAs, createAccount, createContact } from '../../helpers/factories.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

describe('GET /workflows/fields', () => {
  it("lists contact fields, the project's custom data and the event's data fields, typed and sorted", async () => {
    const owner = await createAccount(server)
    const contact = await createContact(server, owner, { data: { plan: 'pro', seats: 3 } })
    await createContact(server, owner, { data: { vip: true } })
    const track = (event: string, data: Record<string, unknown>) =>
      server.app.inject({
        method: 'POST',
        url: '/v1/track',
        headers: bearer(owner.publicKey),
        payload: { email: contact.email, event, data },
      })
    expect((await track('purchase', { amount: 20, item: 'book' })).statusCode).toBe(200)
    expect((await track('purchase', { amount: 5, gift: false })).statusCode).toBe(200)
    expect((await track('signup', { source: 'ad' })).statusCode).toBe(200)

    const response = await callAs(server, owner)('GET', '/workflows/fields?eventName=purchase')
    expect(response.statusCode).toBe(200)
    const typedFields = [
      { field: 'contact.createdAt', type: 'date', category: 'Contact Fields' },
      // Tracked data is also merged into the contact's data.
      { field: 'contact.data.amount', type: 'number', category: 'Custom Data' },
      { field: 'contact.data.gift', type: 'boolean', category: 'Custom Data' },
      { field: 'contact.data.item', type: 'string', category: 'Custom Data' },
      { field: 'contact.data.plan', type: 'string', category: 'Custom Data' },
      { field: 'contact.data.seats', type: 'number', category: 'Custom Data' },
      { field: 'contact.data.source', type: 'string', category: 'Custom Data' },
      { field: 'contact.data.vip', type: 'boolean', category: 'Custom Data' },
      { field: 'contact.email', type: 'string', category: 'Contact Fields' },
      { field: 'contact.subscribed', type: 'boolean', category: 'Contact Fields' },
      { field: 'contact.updatedAt', type: 'date', category: 'Contact Fields' },
      { field: 'event.amount', type: 'number', category: 'Event Data' },
      { field: 'event.gift', type: 'boolean', category: 'Event Data' },
      { field: 'event.item', type: 'string', category: 'Event Data' },
    ]
    expect(response.json()).toEqual({
      fields: typedFields.map((field) => field.field),
      typedFields,
      count: typedFields.length,
    })
    const other = (await callAs(server, owner)('GET', '/workflows/fields?eventName=signup')).json()
    expect(other.fields.filter((field: string) => field.startsWith('event.'))).toEqual(['event.source'])
  })

  it("another project's contacts and events do not show", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    await createContact(server, owner, { data: { secret: 'x' } })
    const fields = (await callAs(server, stranger)('GET', '/workflows/fields')).json()
    expect(fields.fields).toEqual(['contact.createdAt', 'contact.email', 'contact.subscribed', 'contact.updatedAt'])
  })
})
