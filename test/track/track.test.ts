// The package's default export is a CommonJS `exports.default`; its class is also exported by name here.
import { Plunk } from '@plunk/node/dist/lib/Plunk.js'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearer, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

async function track(key: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return server.app.inject({ method: 'POST', url: '/v1/track', headers: { ...bearer(key), ...headers }, payload })
}

async function eventsOf(projectId: string) {
  const result = await server.ctx.db.execute<{ name: string; contact_id: string; data: Record<string, unknown> }>(
    sql`SELECT name, contact_id, data FROM events WHERE project_id = ${projectId} ORDER BY created_at, id`,
  )
  return result.rows
}

describe('POST /v1/track accepts', () => {
  it('creates a subscribed contact and an event, answering {success, data: {contact, event, timestamp}}', async () => {
    const account = await createAccount(server)
    const email = uniqueEmail('Track').toUpperCase()
    const response = await track(account.publicKey, { email, event: 'signed-up', data: { plan: 'pro' } })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toEqual({
      success: true,
      data: { contact: expect.any(String), event: expect.any(String), timestamp: expect.any(String) },
    })
    const contact = await server.app.inject({
      method: 'GET',
      url: `/contacts/${body.data.contact}`,
      headers: bearer(account.secretKey),
    })
    expect(contact.json()).toMatchObject({ email: email.toLowerCase(), subscribed: true, data: { plan: 'pro' } })
    expect(await eventsOf(account.project.id)).toEqual([
      { name: 'signed-up', contact_id: body.data.contact, data: { plan: 'pro' } },
    ])
  })

  it('accepts the secret key too and records a new event on every call', async () => {
    const account = await createAccount(server)
    const email = uniqueEmail()
    const first = await track(account.secretKey, { email, event: 'viewed' })
    const second = await track(account.publicKey, { email, event: 'viewed' })
    expect(first.statusCode).toBe(200)
    expect(second.json().data.contact).toBe(first.json().data.contact)
    expect(second.json().data.event).not.toBe(first.json().data.event)
    expect(await eventsOf(account.project.id)).toHaveLength(2)
  })

  it('works with the official @plunk/node client pointed at /v1/', async () => {
    const account = await createAccount(server)
    const plunk = new Plunk(account.publicKey, { baseUrl: `${server.url}/v1/` })
    const email = uniqueEmail('plunk')
    const result = await plunk.events.track({ event: 'plunk-client', email, data: { source: 'sdk' } })
    expect(result).toMatchObject({ success: true, data: { contact: expect.any(String), event: expect.any(String) } })
    expect(await eventsOf(account.project.id)).toEqual([
      { name: 'plunk-client', contact_id: expect.any(String), data: { source: 'sdk' } },
    ])
  })

  it('replays nothing for a reused Idempotency-Key: 409 and a single event', async () => {
    const account = await createAccount(server)
    const payload = { email: uniqueEmail(), event: 'paid' }
    const headers = { 'idempotency-key': 'order-1' }
    expect((await track(account.publicKey, payload, headers)).statusCode).toBe(200)
    const again = await track(account.publicKey, payload, headers)
    expect(again.statusCode).toBe(409)
    expect(again.json().error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { key: 'order-1' } })
    expect(await eventsOf(account.project.id)).toHaveLength(1)
  })
})

describe('POST /v1/track rejects', () => {
  it.each([
    'email.sent',
    'email.open',
    'contact.subscribed',
    'contact.unsubscribed',
    'segment.vip-users.entry',
    'segment.vip-users.exit',
    'webhook.disabled',
    'campaign.scheduled',
  ])('the reserved event name %s with 422 reserved_event, changing nothing', async (event) => {
    const account = await createAccount(server)
    const response = await track(account.publicKey, { email: uniqueEmail(), event })
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual({
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Request validation failed',
        statusCode: 422,
        requestId: expect.any(String),
        errors: [{ field: 'event', code: 'reserved_event', message: expect.stringContaining(event) }],
      },
      timestamp: expect.any(String),
    })
    const contacts = await server.ctx.db.execute(sql`SELECT 1 FROM contacts WHERE project_id = ${account.project.id}`)
    expect(contacts.rows).toHaveLength(0)
  })

  it('a missing event, an invalid email and non-object data with field errors', async () => {
    const account = await createAccount(server)
    const response = await track(account.publicKey, { email: 'nope', data: [1] })
    expect(response.statusCode).toBe(422)
    const fields = response
      .json()
      .error.errors.map((error: { field: string; code: string }) => [error.field, error.code])
    expect(fields).toEqual([
      ['email', 'invalid_string'],
      ['event', 'invalid_type'],
      ['data', 'invalid_type'],
    ])
  })

  it('data over the documented limits (100 keys, 64 KB) with 422 too_big', async () => {
    const account = await createAccount(server)
    const manyKeys = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))
    const big = { blob: 'x'.repeat(65 * 1024) }
    for (const data of [manyKeys, big]) {
      const response = await track(account.publicKey, { email: uniqueEmail(), event: 'e', data })
      expect(response.statusCode).toBe(422)
      expect(response.json().error.errors[0]).toMatchObject({ field: 'data', code: 'too_big' })
    }
  })

  it('a body over the 1 MB body limit with 413', async () => {
    const account = await createAccount(server)
    const response = await track(account.publicKey, {
      email: uniqueEmail(),
      event: 'e',
      data: { a: 'x'.repeat(1.1e6) },
    })
    expect(response.statusCode).toBe(413)
    expect(response.json().error.code).toBe('PAYLOAD_TOO_LARGE')
  })
})

describe('POST /v1/track scoping', () => {
  it('needs a key of the project, and writes to that project only', async () => {
    const [account, other] = [await createAccount(server), await createAccount(server)]
    const payload = { email: uniqueEmail(), event: 'e' }
    const missing = await server.app.inject({ method: 'POST', url: '/v1/track', payload })
    expect(missing.statusCode).toBe(401)
    const invalid = await track(`pk_${'0'.repeat(64)}`, payload)
    expect(invalid.statusCode).toBe(401)
    expect(invalid.json().error.code).toBe('INVALID_API_KEY')

    const existing = await createContact(server, other, { email: payload.email, data: { owner: 'other' } })
    const response = await track(account.publicKey, { ...payload, data: { owner: 'mine' } })
    expect(response.json().data.contact).not.toBe(existing.id)
    const untouched = await server.app.inject({
      method: 'GET',
      url: `/contacts/${existing.id}`,
      headers: bearer(other.secretKey),
    })
    expect(untouched.json()).toEqual(existing)
    expect(await eventsOf(other.project.id)).toEqual([])
  })
})
