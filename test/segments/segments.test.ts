import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { campaigns, contacts, events } from '../../src/db/schema/index.js'
import { type Account, bearer, callAs, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import { itRequiresTheSecretKey, notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { activeMembers, createSegment, dataEquals, type SegmentJson, segmentEvents, storedSegment } from './helpers.js'

let server: TestServer
let account: Account

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
})
afterAll(() => server?.close())

const call = (owner: Account = account) => callAs(server, owner)

/** The spec's 422 body with these field errors. */
function validationBody(errors: object[]) {
  return {
    success: false,
    error: {
      code: 'VALIDATION_ERROR',
      message: expect.any(String),
      statusCode: 422,
      requestId: expect.any(String),
      errors: errors.map((error) => expect.objectContaining(error)),
    },
    timestamp: expect.any(String),
  }
}

function standardError(code: string, statusCode: number) {
  return {
    success: false,
    error: expect.objectContaining({ code, statusCode, message: expect.any(String), requestId: expect.any(String) }),
    timestamp: expect.any(String),
  }
}

async function insertCampaign(owner: Account, segmentId: string, status: 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'SENT') {
  const [row] = await server.ctx.db
    .insert(campaigns)
    .values({
      projectId: owner.project.id,
      name: `Uses the segment (${status})`,
      subject: 'Hi',
      body: '<p>Hi</p>',
      from: 'news@example.com',
      audienceType: 'SEGMENT',
      segmentId,
      status,
    })
    .returning({ id: campaigns.id })
  if (!row) throw new Error('campaign insert returned nothing')
  return row.id
}

describe('segments: accepts', () => {
  it('creates a dynamic segment (DYNAMIC by default, untracked) with its members counted', async () => {
    const owner = await createAccount(server)
    await createContact(server, owner, { data: { plan: 'pro' } })
    await createContact(server, owner, { data: { plan: 'pro' } })
    await createContact(server, owner, { data: { plan: 'free' } })
    const condition = dataEquals('plan', 'pro')
    const response = await call(owner)('POST', '/segments', { name: 'Pro users', description: 'paying', condition })
    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      id: expect.any(String),
      name: 'Pro users',
      description: 'paying',
      type: 'DYNAMIC',
      condition,
      trackMembership: false,
      memberCount: 2,
      projectId: owner.project.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
  })

  it('creates a static segment with no condition; a condition given is ignored and stored as null', async () => {
    const segment = await createSegment(server, account, {
      name: 'Hand picked',
      type: 'STATIC',
      trackMembership: true,
      condition: { anything: 'goes' },
    })
    expect(segment).toMatchObject({ type: 'STATIC', condition: null, trackMembership: true, memberCount: 0 })
    expect((await storedSegment(server, segment.id))?.condition).toBeNull()
  })

  it('lists every segment of the project as a bare array, newest first', async () => {
    const owner = await createAccount(server)
    const first = await createSegment(server, owner, { name: 'First', type: 'STATIC' })
    const second = await createSegment(server, owner, { name: 'Second', condition: dataEquals('plan', 'pro') })
    const response = await call(owner)('GET', '/segments?limit=5&cursor=x')
    expect(response.statusCode).toBe(200)
    expect(response.json<SegmentJson[]>().map((segment) => segment.id)).toEqual([second.id, first.id])
  })

  it('gets a segment by id', async () => {
    const segment = await createSegment(server, account, { name: 'One', type: 'STATIC' })
    const response = await call()('GET', `/segments/${segment.id}`)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual(segment)
  })

  it('updates name, description, tracking and a dynamic condition, recounting the members', async () => {
    const owner = await createAccount(server)
    await createContact(server, owner, { data: { plan: 'pro' } })
    await createContact(server, owner, { data: { plan: 'free' } })
    await createContact(server, owner, { data: { plan: 'free' } })
    const segment = await createSegment(server, owner, { name: 'Plan', condition: dataEquals('plan', 'pro') })
    expect(segment.memberCount).toBe(1)
    const condition = dataEquals('plan', 'free')
    const response = await call(owner)('PATCH', `/segments/${segment.id}`, {
      name: 'Free plan',
      description: null,
      trackMembership: true,
      condition,
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      id: segment.id,
      name: 'Free plan',
      description: null,
      trackMembership: true,
      condition,
      memberCount: 2,
      type: 'DYNAMIC',
    })
  })

  it('keeps a static segment static: a condition in PATCH is ignored and type cannot change', async () => {
    const segment = await createSegment(server, account, { name: 'List', type: 'STATIC' })
    const response = await call()('PATCH', `/segments/${segment.id}`, {
      type: 'DYNAMIC',
      condition: dataEquals('plan', 'pro'),
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ type: 'STATIC', condition: null })
  })

  it('deletes a segment with 204; it is gone afterwards', async () => {
    const segment = await createSegment(server, account, { name: 'Temporary', type: 'STATIC' })
    await insertCampaign(account, segment.id, 'SENT')
    const response = await call()('DELETE', `/segments/${segment.id}`)
    expect(response.statusCode).toBe(204)
    expect(response.body).toBe('')
    expect((await call()('GET', `/segments/${segment.id}`)).json()).toEqual(notFoundBody('Segment'))
  })

  it('refreshes the count only: no membership rows and no events', async () => {
    const owner = await createAccount(server)
    // Written before the segment exists: a contact written after would enter it at once (contacts API).
    await createContact(server, owner, { data: { plan: 'pro' } })
    const segment = await createSegment(server, owner, {
      name: 'Tracked pro',
      condition: dataEquals('plan', 'pro'),
      trackMembership: true,
    })
    const response = await call(owner)('POST', `/segments/${segment.id}/refresh`)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ memberCount: 1 })
    expect((await storedSegment(server, segment.id))?.memberCount).toBe(1)
    expect(await activeMembers(server, segment.id)).toEqual([])
    expect(await segmentEvents(server, owner.project.id)).toEqual([])
  })
})

describe("segments: Plunk's documented event filter", () => {
  it('names the event by itself: 201, stored and returned as event.<name>, counting recent purchasers only', async () => {
    const owner = await createAccount(server)
    const recent = await createContact(server, owner)
    const longAgo = await createContact(server, owner)
    await createContact(server, owner)
    for (const contact of [recent, longAgo]) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/v1/track',
        headers: bearer(owner.publicKey),
        payload: { email: contact.email, event: 'purchase' },
      })
      expect(response.statusCode, response.body).toBe(200)
    }
    await server.ctx.db
      .update(events)
      .set({ createdAt: new Date(Date.now() - 40 * 86_400_000) })
      .where(eq(events.contactId, longAgo.id))

    const filter = { field: 'purchase', operator: 'triggeredWithin', value: 30, unit: 'days' }
    const response = await call(owner)('POST', '/segments', {
      name: 'Recent buyers',
      condition: { logic: 'AND', groups: [{ filters: [filter] }] },
    })
    expect(response.statusCode, response.body).toBe(201)
    const canonical = { logic: 'AND', groups: [{ filters: [{ ...filter, field: 'event.purchase' }] }] }
    const segment = response.json<SegmentJson>()
    expect(segment).toMatchObject({ condition: canonical, memberCount: 1 })
    expect((await storedSegment(server, segment.id))?.condition).toEqual(canonical)
    const members = await call(owner)('GET', `/segments/${segment.id}/contacts`)
    expect(members.json().data.map((contact: { id: string }) => contact.id)).toEqual([recent.id])
  })
})

describe('segments: contacts of a segment', () => {
  it('lists a dynamic segment live, newest contact first, paginated, subscription not filtered', async () => {
    const owner = await createAccount(server)
    const created = []
    for (let index = 0; index < 5; index++) {
      created.push(await createContact(server, owner, { data: { plan: 'pro' }, subscribed: index % 2 === 0 }))
    }
    await createContact(server, owner, { data: { plan: 'free' } })
    const segment = await createSegment(server, owner, { name: 'Pro', condition: dataEquals('plan', 'pro') })
    const first = await call(owner)('GET', `/segments/${segment.id}/contacts?pageSize=2`)
    expect(first.statusCode).toBe(200)
    const newestFirst = created.map((contact) => contact.id).reverse()
    expect(first.json()).toEqual({
      data: [expect.objectContaining({ id: newestFirst[0] }), expect.objectContaining({ id: newestFirst[1] })],
      total: 5,
      page: 1,
      pageSize: 2,
      totalPages: 3,
    })
    // The contact shape is GET /contacts/:id's.
    const contact = await call(owner)('GET', `/contacts/${newestFirst[0]}`)
    expect(first.json().data[0]).toEqual(contact.json())
    const last = await call(owner)('GET', `/segments/${segment.id}/contacts?pageSize=2&page=3`)
    expect(last.json().data.map((row: { id: string }) => row.id)).toEqual(newestFirst.slice(4))
    // Live: a new matching contact shows up without any refresh.
    const later = await createContact(server, owner, { data: { plan: 'pro' } })
    const live = await call(owner)('GET', `/segments/${segment.id}/contacts?pageSize=2`)
    expect(live.json()).toMatchObject({ total: 6, page: 1, totalPages: 3 })
    expect(live.json().data[0].id).toBe(later.id)
  })

  it('lists a static segment by its active members, most recently added first', async () => {
    const owner = await createAccount(server)
    const segment = await createSegment(server, owner, { name: 'List', type: 'STATIC' })
    const [a, b, c] = [
      await createContact(server, owner),
      await createContact(server, owner),
      await createContact(server, owner),
    ]
    for (const contact of [a, b, c]) {
      await call(owner)('POST', `/segments/${segment.id}/members`, { emails: [contact?.email] })
    }
    await call(owner)('DELETE', `/segments/${segment.id}/members`, { emails: [b?.email] })
    const response = await call(owner)('GET', `/segments/${segment.id}/contacts`)
    expect(response.json()).toMatchObject({ total: 2, page: 1, pageSize: 20, totalPages: 1 })
    expect(response.json().data.map((row: { id: string }) => row.id)).toEqual([c?.id, a?.id])
  })

  it('clamps a page size above 100 to 100, and refuses a page or page size below 1 with a 400', async () => {
    const segment = await createSegment(server, account, { name: 'Paged', type: 'STATIC' })
    const clamped = await call()('GET', `/segments/${segment.id}/contacts?pageSize=101`)
    expect(clamped.statusCode).toBe(200)
    expect(clamped.json()).toEqual({ data: [], total: 0, page: 1, pageSize: 100, totalPages: 0 })
    for (const [query, field] of [
      ['pageSize=0', 'pageSize'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
    ]) {
      const response = await call()('GET', `/segments/${segment.id}/contacts?${query}`)
      expect(response.statusCode, query).toBe(400)
      expect(response.json().error).toMatchObject({ code: 'BAD_REQUEST', errors: [expect.objectContaining({ field })] })
    }
  })
})

describe('segments: static members', () => {
  it('adds members by address, case-insensitively, reporting what matched and what did not', async () => {
    const owner = await createAccount(server)
    const segment = await createSegment(server, owner, { name: 'VIP', type: 'STATIC' })
    const ann = await createContact(server, owner)
    const bob = await createContact(server, owner)
    const stranger = uniqueEmail('nobody')
    const response = await call(owner)('POST', `/segments/${segment.id}/members`, {
      emails: [ann.email.toUpperCase(), bob.email, bob.email.toUpperCase(), stranger],
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ added: 2, created: 0, notFound: [stranger] })
    expect(await activeMembers(server, segment.id)).toEqual([ann.id, bob.id].sort())
    expect((await storedSegment(server, segment.id))?.memberCount).toBe(2)
    // Adding a member again keeps one membership and counts it as matched.
    const again = await call(owner)('POST', `/segments/${segment.id}/members`, { emails: [ann.email] })
    expect(again.json()).toEqual({ added: 1, created: 0, notFound: [] })
    expect(await activeMembers(server, segment.id)).toHaveLength(2)
  })

  it('creates missing contacts when asked, subscribed unless told otherwise', async () => {
    const owner = await createAccount(server)
    const segment = await createSegment(server, owner, { name: 'Imported', type: 'STATIC' })
    const [fresh, quiet] = [uniqueEmail('fresh'), uniqueEmail('quiet')]
    const response = await call(owner)('POST', `/segments/${segment.id}/members`, {
      emails: [fresh.toUpperCase()],
      createMissing: true,
    })
    expect(response.json()).toEqual({ added: 1, created: 1, notFound: [] })
    const unsubscribed = await call(owner)('POST', `/segments/${segment.id}/members`, {
      emails: [quiet],
      createMissing: true,
      subscribed: false,
    })
    expect(unsubscribed.json()).toEqual({ added: 1, created: 1, notFound: [] })
    const rows = await server.ctx.db
      .select({ email: contacts.email, subscribed: contacts.subscribed })
      .from(contacts)
      .where(eq(contacts.projectId, owner.project.id))
    expect(rows.sort((a, b) => a.email.localeCompare(b.email))).toEqual(
      [
        { email: fresh, subscribed: true },
        { email: quiet, subscribed: false },
      ].sort((a, b) => a.email.localeCompare(b.email)),
    )
    expect(await activeMembers(server, segment.id)).toHaveLength(2)
  })

  it('removes members by address and counts the contacts matched', async () => {
    const owner = await createAccount(server)
    const segment = await createSegment(server, owner, { name: 'Leaving', type: 'STATIC' })
    const ann = await createContact(server, owner)
    const bob = await createContact(server, owner)
    await call(owner)('POST', `/segments/${segment.id}/members`, { emails: [ann.email, bob.email] })
    const response = await call(owner)('DELETE', `/segments/${segment.id}/members`, {
      emails: [ann.email.toUpperCase(), uniqueEmail('nobody')],
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ removed: 1 })
    expect(await activeMembers(server, segment.id)).toEqual([bob.id])
    expect((await storedSegment(server, segment.id))?.memberCount).toBe(1)
  })

  it('refuses member changes on a dynamic segment with 400, changing nothing', async () => {
    const segment = await createSegment(server, account, { name: 'Dynamic', condition: dataEquals('plan', 'pro') })
    const contact = await createContact(server, account)
    for (const method of ['POST', 'DELETE'] as const) {
      const response = await call()(method, `/segments/${segment.id}/members`, { emails: [contact.email] })
      expect(response.statusCode).toBe(400)
      expect(response.json()).toEqual(standardError('BAD_REQUEST', 400))
    }
    expect(await activeMembers(server, segment.id)).toEqual([])
  })

  it('answers a missing, empty or wrongly typed email list with 422 naming emails, changing nothing', async () => {
    const segment = await createSegment(server, account, { name: 'Strict', type: 'STATIC' })
    const contact = await createContact(server, account)
    await call()('POST', `/segments/${segment.id}/members`, { emails: [contact.email] })
    for (const method of ['POST', 'DELETE'] as const) {
      for (const [payload, code] of [
        [{}, 'invalid_type'],
        [{ emails: null }, 'invalid_type'],
        [{ emails: [] }, 'too_small'],
        [{ emails: contact.email }, 'invalid_type'],
      ] as const) {
        const response = await call()(method, `/segments/${segment.id}/members`, payload)
        expect(response.statusCode, `${method} ${JSON.stringify(payload)}`).toBe(422)
        expect(response.json()).toEqual(validationBody([{ field: 'emails', code }]))
      }
      const bad = await call()(method, `/segments/${segment.id}/members`, { emails: ['not-an-address'] })
      expect(bad.statusCode).toBe(422)
      expect(bad.json()).toEqual(validationBody([{ field: 'emails.0', code: 'invalid_string' }]))
      const many = Array.from({ length: 501 }, (_, index) => `user${index}@example.com`)
      const tooMany = await call()(method, `/segments/${segment.id}/members`, { emails: many })
      expect(tooMany.statusCode).toBe(422)
      expect(tooMany.json()).toEqual(validationBody([{ field: 'emails', code: 'too_big' }]))
    }
    expect(await activeMembers(server, segment.id)).toEqual([contact.id])
  })

  it('answers a body that is missing, null or not an object with 422 and the standard body, changing nothing', async () => {
    const segment = await createSegment(server, account, { name: 'Bodies', type: 'STATIC' })
    const contact = await createContact(server, account)
    await call()('POST', `/segments/${segment.id}/members`, { emails: [contact.email] })
    // A raw JSON text as the body; none at all (and no Content-Type) when undefined.
    const send = (method: 'POST' | 'DELETE', payload: string | undefined) =>
      server.app.inject({
        method,
        url: `/segments/${segment.id}/members`,
        headers: {
          ...bearer(account.secretKey),
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(payload === undefined ? {} : { payload }),
      })
    for (const method of ['POST', 'DELETE'] as const) {
      for (const payload of [undefined, 'null']) {
        const response = await send(method, payload)
        expect(response.statusCode, `${method} ${payload}`).toBe(422)
        expect(response.json()).toEqual(validationBody([{ field: 'emails', code: 'invalid_type' }]))
      }
      for (const [payload, received] of [
        ['[]', 'array'],
        ['"x"', 'string'],
        ['3', 'number'],
      ] as const) {
        const response = await send(method, payload)
        expect(response.statusCode, `${method} ${payload}`).toBe(422)
        expect(response.json()).toEqual(validationBody([{ field: '', code: 'invalid_type', received }]))
      }
    }
    expect(await activeMembers(server, segment.id)).toEqual([contact.id])
  })
})

describe('segments: compute', () => {
  it('answers an untracked segment with 400, and a tracked static one with its count', async () => {
    const untracked = await createSegment(server, account, { name: 'Untracked', condition: dataEquals('a', 1) })
    const refused = await call()('POST', `/segments/${untracked.id}/compute`)
    expect(refused.statusCode).toBe(400)
    expect(refused.json()).toEqual(standardError('BAD_REQUEST', 400))
    expect(refused.json().error.message).toBe('Segment does not have membership tracking enabled')

    const owner = await createAccount(server)
    const list = await createSegment(server, owner, { name: 'Tracked list', type: 'STATIC', trackMembership: true })
    const contact = await createContact(server, owner)
    await call(owner)('POST', `/segments/${list.id}/members`, { emails: [contact.email] })
    const computed = await call(owner)('POST', `/segments/${list.id}/compute`)
    expect(computed.statusCode).toBe(200)
    expect(computed.json()).toEqual({ added: 0, removed: 0, total: 1 })
  })
})

describe('segments: rejects', () => {
  it('answers a missing name with the legacy 400 body, creating nothing', async () => {
    const owner = await createAccount(server)
    for (const payload of [{}, { name: '' }, { name: '   ', type: 'STATIC' }, { condition: dataEquals('a', 1) }]) {
      const response = await call(owner)('POST', '/segments', payload)
      expect(response.statusCode).toBe(400)
      expect(response.json()).toEqual({ error: 'Missing required field: name' })
    }
    expect((await call(owner)('GET', '/segments')).json()).toEqual([])
  })

  it('answers a dynamic segment created without an object condition with the legacy 400 body', async () => {
    for (const payload of [
      { name: 'No condition' },
      { name: 'Null condition', type: 'DYNAMIC', condition: null },
      { name: 'String condition', condition: 'plan = pro' },
      { name: 'Array condition', condition: [] },
    ]) {
      const response = await call()('POST', '/segments', payload)
      expect(response.statusCode).toBe(400)
      expect(response.json()).toEqual({ error: 'Condition is required and must be an object for DYNAMIC segments' })
    }
  })

  it('answers a PATCH whose condition is not a condition tree with 422 naming condition, changing nothing', async () => {
    for (const type of ['DYNAMIC', 'STATIC'] as const) {
      const segment = await createSegment(server, account, {
        name: `Patched ${type}`,
        type,
        ...(type === 'DYNAMIC' ? { condition: dataEquals('a', 1) } : {}),
      })
      const before = await storedSegment(server, segment.id)
      for (const [condition, received] of [
        ['plan = pro', 'string'],
        [null, 'null'],
        [[], 'array'],
        [3, 'number'],
        [true, 'boolean'],
      ] as const) {
        const response = await call()('PATCH', `/segments/${segment.id}`, { name: 'Renamed', condition })
        expect(response.statusCode, `${type} ${JSON.stringify(condition)}`).toBe(422)
        expect(response.json()).toEqual(validationBody([{ field: 'condition', code: 'invalid_type', received }]))
      }
      expect(await storedSegment(server, segment.id)).toEqual(before)
    }
  })

  it('answers a bad condition tree with 422 and the path of the bad filter', async () => {
    const condition = {
      logic: 'AND',
      groups: [
        { filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] },
        { filters: [{ field: 'data.plan', operator: 'resembles', value: 'pro' }] },
      ],
    }
    const response = await call()('POST', '/segments', { name: 'Bad operator', condition })
    expect(response.statusCode).toBe(422)
    const badOperator = [{ field: 'condition.groups.1.filters.0.operator', code: 'invalid_enum_value' }]
    expect(response.json()).toEqual(validationBody(badOperator))
    const segment = await createSegment(server, account, { name: 'Fine', condition: dataEquals('a', 1) })
    const patched = await call()('PATCH', `/segments/${segment.id}`, { condition })
    expect(patched.statusCode).toBe(422)
    expect(patched.json()).toEqual(validationBody(badOperator))
    expect((await storedSegment(server, segment.id))?.condition).toEqual(dataEquals('a', 1))
  })

  it('refuses a tree nested too deep or with too many filters with 422, not a crash', async () => {
    let deep: Record<string, unknown> = dataEquals('a', 1)
    for (let depth = 0; depth < 200; depth++) {
      deep = { logic: 'AND', groups: [{ filters: [], conditions: deep }] }
    }
    const huge = {
      logic: 'OR',
      groups: [
        {
          filters: Array.from({ length: 5_000 }, (_, index) => ({
            field: `data.k${index}`,
            operator: 'equals',
            value: index,
          })),
        },
      ],
    }
    for (const condition of [deep, huge]) {
      const response = await call()('POST', '/segments', { name: 'Too big', condition })
      expect(response.statusCode).toBe(422)
      expect(response.json().error.code).toBe('VALIDATION_ERROR')
    }
  })

  it("refuses a condition naming another project's segment, or an unknown one, with 422 at the filter", async () => {
    const stranger = await createAccount(server)
    const theirs = await createSegment(server, stranger, { name: 'Theirs', type: 'STATIC' })
    for (const segmentId of [theirs.id, '8c5e1f9a-3f55-4f86-9c8e-1b2d3c4e5f60']) {
      const condition = {
        logic: 'AND',
        groups: [{ filters: [{ field: `segment.${segmentId}`, operator: 'memberOfSegment' }] }],
      }
      const response = await call()('POST', '/segments', { name: 'Borrowed', condition })
      expect(response.statusCode).toBe(422)
      expect(response.json()).toEqual(validationBody([{ field: 'condition.groups.0.filters.0.field' }]))
    }
    expect((await call()('GET', '/segments')).json().map((segment: SegmentJson) => segment.name)).not.toContain(
      'Borrowed',
    )
  })

  it('refuses a condition that would make a segment refer to itself, directly or through another', async () => {
    const owner = await createAccount(server)
    const first = await createSegment(server, owner, { name: 'First', condition: dataEquals('a', 1) })
    const memberOf = (id: string) => ({
      logic: 'AND',
      groups: [{ filters: [{ field: `segment.${id}`, operator: 'memberOfSegment' }] }],
    })
    const second = await createSegment(server, owner, { name: 'Second', condition: memberOf(first.id) })
    for (const [id, condition] of [
      [first.id, memberOf(first.id)],
      [first.id, memberOf(second.id)],
    ] as const) {
      const response = await call(owner)('PATCH', `/segments/${id}`, { condition })
      expect(response.statusCode).toBe(422)
      expect(response.json()).toEqual(validationBody([{ field: 'condition.groups.0.filters.0.field' }]))
    }
    expect((await storedSegment(server, first.id))?.condition).toEqual(dataEquals('a', 1))
  })

  it('stores SQL- and Liquid-looking values as plain values that match only themselves', async () => {
    const owner = await createAccount(server)
    const tricky = "pro' OR 1=1; DROP TABLE contacts; -- {{ secret }} {% raw %}"
    const match = await createContact(server, owner, { data: { plan: tricky } })
    await createContact(server, owner, { data: { plan: 'pro' } })
    const segment = await createSegment(server, owner, { name: 'Tricky', condition: dataEquals('plan', tricky) })
    expect(segment.memberCount).toBe(1)
    expect(segment.condition).toEqual(dataEquals('plan', tricky))
    const listed = await call(owner)('GET', `/segments/${segment.id}/contacts`)
    expect(listed.json().data.map((row: { id: string }) => row.id)).toEqual([match.id])
  })

  it('refuses a name longer than 100 characters with 422', async () => {
    const response = await call()('POST', '/segments', { name: 'x'.repeat(101), type: 'STATIC' })
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(validationBody([{ field: 'name', code: 'too_big' }]))
  })

  it('refuses to delete a segment a draft, scheduled or sending campaign uses, with 409', async () => {
    for (const status of ['DRAFT', 'SCHEDULED', 'SENDING'] as const) {
      const segment = await createSegment(server, account, { name: `Audience ${status}`, type: 'STATIC' })
      const campaignId = await insertCampaign(account, segment.id, status)
      const response = await call()('DELETE', `/segments/${segment.id}`)
      expect(response.statusCode, status).toBe(409)
      expect(response.json()).toEqual(standardError('CONFLICT', 409))
      expect(response.json().error.details.campaigns).toEqual([
        { id: campaignId, name: `Uses the segment (${status})` },
      ])
      expect(await storedSegment(server, segment.id)).toBeDefined()
    }
  })
})

describe('segments: delete while referenced', () => {
  it('refuses to delete a segment another segment refers to, with 409', async () => {
    const owner = await createAccount(server)
    const list = await createSegment(server, owner, { name: 'List', type: 'STATIC' })
    const user = await createSegment(server, owner, {
      name: 'On the list',
      condition: {
        logic: 'AND',
        groups: [{ filters: [{ field: `segment.${list.id}`, operator: 'memberOfSegment' }] }],
      },
    })
    const response = await call(owner)('DELETE', `/segments/${list.id}`)
    expect(response.statusCode).toBe(409)
    expect(response.json().error.details).toEqual({ campaigns: [], segments: [{ id: user.id, name: 'On the list' }] })
    expect(await storedSegment(server, list.id)).toBeDefined()
  })
})

describe('segments: scoping', () => {
  itRequiresTheSecretKey(
    () => server,
    [
      ['GET', '/segments'],
      ['POST', '/segments', { name: 'x', type: 'STATIC' }],
      ['GET', '/segments/8c5e1f9a-3f55-4f86-9c8e-1b2d3c4e5f60'],
      ['POST', '/segments/8c5e1f9a-3f55-4f86-9c8e-1b2d3c4e5f60/compute'],
    ],
  )

  it("cannot see or change another project's segment through any route; it stays unchanged", async () => {
    const owner = await createAccount(server)
    const member = await createContact(server, owner)
    const segment = await createSegment(server, owner, { name: 'Private', type: 'STATIC', trackMembership: true })
    await call(owner)('POST', `/segments/${segment.id}/members`, { emails: [member.email] })
    const before = await storedSegment(server, segment.id)
    const stranger = await createAccount(server)
    const strangerContact = await createContact(server, stranger)
    const url = `/segments/${segment.id}`
    for (const [method, path, payload] of [
      ['GET', url],
      ['PATCH', url, { name: 'Stolen' }],
      ['DELETE', url],
      ['GET', `${url}/contacts`],
      ['POST', `${url}/members`, { emails: [strangerContact.email, member.email] }],
      ['DELETE', `${url}/members`, { emails: [member.email] }],
      ['POST', `${url}/compute`],
      ['POST', `${url}/refresh`],
    ] as const) {
      const response = await call(stranger)(method, path, payload)
      expect(response.statusCode, `${method} ${path}`).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Segment'))
    }
    expect(await storedSegment(server, segment.id)).toEqual(before)
    expect(await activeMembers(server, segment.id)).toEqual([member.id])
    expect((await call(stranger)('GET', '/segments')).json()).toEqual([])
  })

  it('answers an unknown id, and an id that is not a uuid, with the same 404', async () => {
    for (const id of ['8c5e1f9a-3f55-4f86-9c8e-1b2d3c4e5f60', 'not-a-uuid', "1' OR '1'='1"]) {
      const response = await call()('GET', `/segments/${encodeURIComponent(id)}`)
      expect(response.statusCode, id).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Segment'))
    }
  })
})
