import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Account,
  bearer,
  type ContactJson,
  callAs,
  createAccount,
  createContact,
  type Method,
  uniqueEmail,
} from '../helpers/factories.js'
import { itRequiresTheSecretKey } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

function call(account: Account, method: Method, url: string, payload?: object) {
  return callAs(server, account)(method, url, payload)
}

async function listAll(account: Account, query: string): Promise<ContactJson[]> {
  const seen: ContactJson[] = []
  let cursor = ''
  for (;;) {
    const page = await call(account, 'GET', `/contacts?${query}${cursor ? `&cursor=${cursor}` : ''}`)
    expect(page.statusCode).toBe(200)
    const body = page.json()
    seen.push(...body.data)
    if (!body.hasMore) return seen
    cursor = body.cursor
  }
}

describe('contacts accept', () => {
  it('POST /contacts creates (201) then updates (200) by email, whatever its case, with _meta', async () => {
    const account = await createAccount(server)
    const email = uniqueEmail('Upsert')
    const created = await call(account, 'POST', '/contacts', {
      email: ` ${email.toUpperCase()} `.trim(),
      data: { a: 1 },
    })
    expect(created.statusCode).toBe(201)
    expect(created.json()).toEqual({
      id: expect.any(String),
      email: email.toLowerCase(),
      subscribed: true,
      snoozedUntil: null,
      data: { a: 1 },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      _meta: { isNew: true, isUpdate: false },
    })
    const updated = await call(account, 'POST', '/contacts', { email: email.toLowerCase(), data: { b: 2 } })
    expect(updated.statusCode).toBe(200)
    expect(updated.json()).toMatchObject({
      id: created.json().id,
      data: { a: 1, b: 2 },
      _meta: { isNew: false, isUpdate: true },
    })
    const fetched = await call(account, 'GET', `/contacts/${created.json().id}`)
    expect(fetched.json()).not.toHaveProperty('_meta')
  })

  it('gives one contact for many concurrent upserts of one email', async () => {
    const account = await createAccount(server)
    const email = uniqueEmail('race')
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(account, 'POST', '/contacts', { email: i % 2 ? email : email.toUpperCase(), data: { [`k${i}`]: i } }),
      ),
    )
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(1)
    expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(19)
    const rows = await server.ctx.db.execute<{ id: string; data: Record<string, number> }>(
      sql`SELECT id, data FROM contacts WHERE project_id = ${account.project.id}`,
    )
    expect(rows.rows).toHaveLength(1)
    // Data merges in SQL, so no concurrent writer lost its key.
    expect(Object.keys(rows.rows[0]?.data ?? {})).toHaveLength(20)
  })

  it('PATCH updates email, subscription and data; DELETE removes the contact', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account, { data: { keep: 1, drop: 2 } })
    const email = uniqueEmail('renamed')
    const patched = await call(account, 'PATCH', `/contacts/${contact.id}`, {
      email: email.toUpperCase(),
      subscribed: false,
      data: { drop: null, added: 'x' },
    })
    expect(patched.statusCode).toBe(200)
    expect(patched.json()).toMatchObject({ email, subscribed: false, data: { keep: 1, added: 'x' } })
    expect(patched.json().data).not.toHaveProperty('drop')
    expect((await call(account, 'DELETE', `/contacts/${contact.id}`)).statusCode).toBe(204)
    expect((await call(account, 'GET', `/contacts/${contact.id}`)).statusCode).toBe(404)
  })

  it('pages through 250 contacts with no duplicates or gaps while contacts are being added', async () => {
    const account = await createAccount(server)
    const values = Array.from({ length: 250 }, (_, i) => sql`(${account.project.id}::uuid, ${`p${i}@example.com`})`)
    await server.ctx.db.execute(sql`INSERT INTO contacts (project_id, email) VALUES ${sql.join(values, sql`, `)}`)
    for (const [query, added] of [
      ['limit=7', 'desc'],
      ['limit=9&dir=asc', 'asc'],
      ['limit=11&sort=email', 'email'],
    ] as const) {
      let extra = 0
      const seen: string[] = []
      let cursor = ''
      for (;;) {
        const page = await call(account, 'GET', `/contacts?${query}${cursor ? `&cursor=${cursor}` : ''}`)
        const body = page.json()
        seen.push(...body.data.map((contact: ContactJson) => contact.email))
        expect(body.total).toBe(cursor ? 0 : 250 + extra)
        await createContact(server, account, { email: `new-${added}-${extra++}@example.com` })
        if (!body.hasMore) break
        cursor = body.cursor
      }
      const originals = seen.filter((email) => email.startsWith('p'))
      expect(new Set(seen).size).toBe(seen.length)
      expect(originals.sort()).toEqual(Array.from({ length: 250 }, (_, i) => `p${i}@example.com`).sort())
      await server.ctx.db.execute(
        sql`DELETE FROM contacts WHERE project_id = ${account.project.id} AND email LIKE 'new-%'`,
      )
    }
  })

  it('filters by search (case-insensitive) and subscribed, sorts by email, clamps limit to 100', async () => {
    const account = await createAccount(server)
    await createContact(server, account, { email: 'Alice@Example.com' })
    await createContact(server, account, { email: 'bob@example.com', subscribed: false })
    await createContact(server, account, { email: 'carol@other.org' })
    const search = await call(account, 'GET', '/contacts?search=EXAMPLE&sort=email&dir=asc')
    expect(search.json().data.map((contact: ContactJson) => contact.email)).toEqual([
      'alice@example.com',
      'bob@example.com',
    ])
    expect(search.json()).toMatchObject({ total: 2, hasMore: false, cursor: '' })
    const unsubscribed = await call(account, 'GET', '/contacts?subscribed=false')
    expect(unsubscribed.json().data.map((contact: ContactJson) => contact.email)).toEqual(['bob@example.com'])
    const wildcard = await call(account, 'GET', '/contacts?search=%25')
    expect(wildcard.json().total).toBe(0)
    const fallback = await call(account, 'GET', '/contacts?limit=1000&sort=nonsense&dir=sideways')
    expect(fallback.statusCode).toBe(200)
    expect(fallback.json().data).toHaveLength(3)
    expect(await listAll(account, 'limit=1')).toHaveLength(3)
  })

  it('looks up emails, listing found contacts and missing addresses', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    const response = await call(account, 'POST', '/contacts/lookup', {
      emails: [contact.email.toUpperCase(), 'missing@example.com'],
    })
    expect(response.json()).toEqual({
      found: [{ id: contact.id, email: contact.email, subscribed: true }],
      notFound: ['missing@example.com'],
    })
  })

  it('lists standard and custom fields with types and coverage, their values, usage, and deletes one', async () => {
    const account = await createAccount(server)
    await createContact(server, account, { data: { plan: 'pro', seats: 3 } })
    await createContact(server, account, { data: { plan: 'free' } })
    await createContact(server, account, { data: { plan: 'pro' } })
    await createContact(server, account)
    const fields = await call(account, 'GET', '/contacts/fields')
    expect(fields.json()).toEqual({
      totalContacts: 4,
      fields: [
        { field: 'email', type: 'string', standard: true, count: 4, coverage: 100 },
        { field: 'subscribed', type: 'boolean', standard: true, count: 4, coverage: 100 },
        { field: 'createdAt', type: 'date', standard: true, count: 4, coverage: 100 },
        { field: 'updatedAt', type: 'date', standard: true, count: 4, coverage: 100 },
        { field: 'plan', type: 'string', standard: false, count: 3, coverage: 75 },
        { field: 'seats', type: 'number', standard: false, count: 1, coverage: 25 },
      ],
    })
    const values = await call(account, 'GET', '/contacts/fields/plan/values')
    expect(values.json()).toEqual({
      field: 'plan',
      values: [
        { value: 'pro', count: 2 },
        { value: 'free', count: 1 },
      ],
    })
    const usage = await call(account, 'GET', '/contacts/fields/plan/usage')
    expect(usage.json()).toEqual({ segments: [], campaigns: [], workflows: [] })
    const deleted = await call(account, 'DELETE', '/contacts/fields/plan')
    expect(deleted.json()).toEqual({ field: 'plan', contacts: 3 })
    expect((await call(account, 'GET', '/contacts/fields/plan/values')).statusCode).toBe(404)
  })
})

describe('contacts reject', () => {
  it('POST /contacts without email: 400 with the plain {error} body, nothing created', async () => {
    const account = await createAccount(server)
    const response = await call(account, 'POST', '/contacts', { data: { a: 1 } })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({ error: 'email is required' })
    const empty = await server.app.inject({ method: 'POST', url: '/contacts', headers: bearer(account.secretKey) })
    expect(empty.statusCode).toBe(400)
    expect(empty.json()).toEqual({ error: 'email is required' })
    expect((await call(account, 'GET', '/contacts')).json().total).toBe(0)
  })

  it('PATCH to an email another contact uses: 409, both unchanged', async () => {
    const account = await createAccount(server)
    const first = await createContact(server, account)
    const second = await createContact(server, account)
    const response = await call(account, 'PATCH', `/contacts/${second.id}`, { email: first.email, data: { x: 1 } })
    expect(response.statusCode).toBe(409)
    expect(response.json().error).toMatchObject({ code: 'CONFLICT', statusCode: 409 })
    expect((await call(account, 'GET', `/contacts/${second.id}`)).json()).toEqual(second)
  })

  it('a path id that is not a uuid: 422; an unknown id: 404', async () => {
    const account = await createAccount(server)
    const bad = await call(account, 'GET', '/contacts/not-a-uuid')
    expect(bad.statusCode).toBe(422)
    expect(bad.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'id', code: 'invalid_string' }],
    })
    const unknown = await call(account, 'GET', '/contacts/00000000-0000-4000-8000-000000000000')
    expect(unknown.json()).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'Contact not found', statusCode: 404, requestId: expect.any(String) },
      timestamp: expect.any(String),
    })
  })

  it('more than 500 lookup emails, non-object data and a bad cursor', async () => {
    const account = await createAccount(server)
    const lookup = await call(account, 'POST', '/contacts/lookup', {
      emails: Array.from({ length: 501 }, (_, i) => `e${i}@example.com`),
    })
    expect(lookup.statusCode).toBe(422)
    expect(lookup.json().error.errors[0]).toMatchObject({ field: 'emails', code: 'too_big' })
    const data = await call(account, 'POST', '/contacts', { email: uniqueEmail(), data: 'text' })
    expect(data.statusCode).toBe(422)
    expect(data.json().error.errors[0]).toMatchObject({ field: 'data', code: 'invalid_type' })
    const forged = Buffer.from(
      JSON.stringify(['createdAt', 'desc', 'not a time', '00000000-0000-4000-8000-000000000000']),
    ).toString('base64url')
    for (const cursor of ['garbage', forged]) {
      const response = await call(account, 'GET', `/contacts?cursor=${cursor}`)
      expect(response.statusCode).toBe(400)
      expect(response.json().error.code).toBe('BAD_REQUEST')
    }
  })
})

describe('contacts scoping', () => {
  const id = '00000000-0000-4000-8000-000000000000'
  itRequiresTheSecretKey(
    () => server,
    [
      ['GET', '/contacts'],
      ['POST', '/contacts', { email: 'x@example.com' }],
      ['POST', '/contacts/lookup', { emails: ['x@example.com'] }],
      ['GET', '/contacts/fields'],
      ['GET', '/contacts/fields/plan/values'],
      ['GET', '/contacts/fields/plan/usage'],
      ['DELETE', '/contacts/fields/plan'],
      ['POST', '/contacts/import'],
      ['GET', `/contacts/import/${id}`],
      ['POST', '/contacts/bulk-subscribe', { contactIds: [id] }],
      ['POST', '/contacts/bulk-unsubscribe', { contactIds: [id] }],
      ['POST', '/contacts/bulk-delete', { contactIds: [id] }],
      ['GET', `/contacts/bulk/${id}`],
      ['GET', `/contacts/${id}`],
      ['PATCH', `/contacts/${id}`, { subscribed: false }],
      ['DELETE', `/contacts/${id}`],
    ],
  )

  it("another project's contact is 404 on every route and stays unchanged", async () => {
    const [owner, other] = [await createAccount(server), await createAccount(server)]
    const contact = await createContact(server, owner, { data: { plan: 'pro' } })
    for (const [method, url, payload] of [
      ['GET', `/contacts/${contact.id}`],
      ['PATCH', `/contacts/${contact.id}`, { subscribed: false, data: { plan: null } }],
      ['DELETE', `/contacts/${contact.id}`],
      ['POST', '/contacts/bulk-unsubscribe', { contactIds: [contact.id] }],
      ['POST', '/contacts/bulk-delete', { contactIds: [contact.id] }],
      ['GET', '/contacts/fields/plan/values'],
      ['DELETE', '/contacts/fields/plan'],
    ] as const) {
      const response = await call(other, method, url, payload)
      expect(response.statusCode, `${method} ${url}`).toBe(404)
    }
    const lists = await call(other, 'GET', '/contacts')
    expect(lists.json()).toMatchObject({ data: [], total: 0 })
    const lookup = await call(other, 'POST', '/contacts/lookup', { emails: [contact.email] })
    expect(lookup.json().found).toEqual([])
    expect((await call(owner, 'GET', `/contacts/${contact.id}`)).json()).toEqual(contact)
  })

  it('a session cookie with X-Project-Id works for members only', async () => {
    const [owner, stranger] = [await createAccount(server), await createAccount(server)]
    const contact = await createContact(server, owner)
    const member = await server.app.inject({
      method: 'GET',
      url: `/contacts/${contact.id}`,
      headers: { cookie: owner.cookie, 'x-project-id': owner.project.id },
    })
    expect(member.json()).toEqual(contact)
    const outsider = await server.app.inject({
      method: 'GET',
      url: `/contacts/${contact.id}`,
      headers: { cookie: stranger.cookie, 'x-project-id': owner.project.id },
    })
    expect(outsider.statusCode).toBe(404)
  })
})
