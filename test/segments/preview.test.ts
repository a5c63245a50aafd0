import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, callAs, createAccount, createContact } from '../helpers/factories.js'
import { itRequiresTheSecretKey } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createSegment, dataEquals } from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

const preview = (account: Account, body: object) => callAs(server, account)('POST', '/segments/preview', body)

describe('segment preview: accepts', () => {
  it('counts and lists (newest first) the contacts an unsaved condition matches, subscription not filtered', async () => {
    const owner = await createAccount(server)
    const first = await createContact(server, owner, { data: { plan: 'pro' } })
    const second = await createContact(server, owner, { subscribed: false, data: { plan: 'pro' } })
    await createContact(server, owner, { data: { plan: 'free' } })
    const response = await preview(owner, { condition: dataEquals('plan', 'pro') })
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json<{ total: number; contacts: { id: string }[] }>()
    expect(body.total).toBe(2)
    expect(body.contacts.map((contact) => contact.id)).toEqual([second.id, first.id])
  })

  it('gives the count the saved segment then has, and lists at most `limit` contacts', async () => {
    const owner = await createAccount(server)
    for (let i = 0; i < 3; i++) await createContact(server, owner, { data: { plan: 'pro' } })
    const condition = dataEquals('plan', 'pro')
    const response = await preview(owner, { condition, limit: 2 })
    expect(response.json()).toEqual({ total: 3, contacts: [expect.any(Object), expect.any(Object)] })
    const saved = await createSegment(server, owner, { name: 'Pro', condition })
    const contacts = await callAs(server, owner)('GET', `/segments/${saved.id}/contacts`)
    expect(contacts.json<{ total: number }>().total).toBe(3)
    expect(saved.memberCount).toBe(3)
  })
})

describe('segment preview: rejects', () => {
  it('answers a bad filter with 422 at its path under condition, as saving would', async () => {
    const owner = await createAccount(server)
    const condition = {
      logic: 'AND',
      groups: [
        { filters: [{ field: 'email', operator: 'contains', value: 'a' }] },
        { filters: [{ field: 'email', operator: 'within', value: 3, unit: 'days' }] },
      ],
    }
    const response = await preview(owner, { condition })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors).toEqual([
      expect.objectContaining({ field: 'condition.groups.1.filters.0.operator' }),
    ])
  })

  it('refuses a condition reaching the segment being edited, as saving it would', async () => {
    const owner = await createAccount(server)
    const inner = await createSegment(server, owner, { name: 'Inner', type: 'STATIC' })
    const outer = await createSegment(server, owner, {
      name: 'Outer',
      condition: {
        logic: 'AND',
        groups: [{ filters: [{ field: `segment.${inner.id}`, operator: 'memberOfSegment' }] }],
      },
    })
    const selfReference = {
      logic: 'AND',
      groups: [{ filters: [{ field: `segment.${outer.id}`, operator: 'memberOfSegment' }] }],
    }
    const response = await preview(owner, { condition: selfReference, segmentId: outer.id })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors).toEqual([
      expect.objectContaining({ field: 'condition.groups.0.filters.0.field' }),
    ])
  })
})

describe('segment preview: scoping', () => {
  itRequiresTheSecretKey(() => server, [['POST', '/segments/preview', { condition: dataEquals('plan', 'pro') }]])

  it("never counts another project's contacts, nor reaches another project's segment", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    await createContact(server, stranger, { data: { plan: 'pro' } })
    const theirs = await createSegment(server, stranger, { name: 'Theirs', type: 'STATIC' })
    expect((await preview(owner, { condition: dataEquals('plan', 'pro') })).json()).toEqual({ total: 0, contacts: [] })
    const response = await preview(owner, {
      condition: {
        logic: 'AND',
        groups: [{ filters: [{ field: `segment.${theirs.id}`, operator: 'memberOfSegment' }] }],
      },
    })
    expect(response.statusCode).toBe(422)
  })
})
