import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, callAs, createAccount } from '../helpers/factories.js'
import { notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
let strict: TestServer
let account: Account

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  // WEBHOOK_ALLOW_PRIVATE off, as in production by default.
  strict = await startTestServer({ worker: false, config: { webhookAllowPrivate: false } })
  account = await createAccount(server)
})
afterAll(async () => {
  await server.close()
  await strict.close()
})

const validationBody = (field: string, message: unknown) => ({
  success: false,
  error: {
    code: 'VALIDATION_ERROR',
    message: expect.any(String),
    statusCode: 422,
    requestId: expect.any(String),
    errors: [expect.objectContaining({ field, message })],
  },
  timestamp: expect.any(String),
})

describe('accepts', () => {
  it('creates an endpoint and shows its whsec_ secret once, then never again', async () => {
    const call = callAs(server, account)
    const created = await call('POST', '/webhooks', {
      url: 'https://hooks.example.com/mailroom',
      description: 'CRM',
      eventTypes: ['email.*', 'contact.subscribed'],
    })
    expect(created.statusCode).toBe(201)
    const body = created.json()
    expect(body).toEqual({
      id: expect.any(String),
      url: 'https://hooks.example.com/mailroom',
      description: 'CRM',
      eventTypes: ['email.*', 'contact.subscribed'],
      enabled: true,
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      warnings: [],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    })
    // 24 bytes at least, as Standard Webhooks asks.
    expect(Buffer.from(body.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24)

    const read = await call('GET', `/webhooks/${body.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.json()).not.toHaveProperty('secret')
    expect(read.body).not.toContain(body.secret.slice(6))
    const list = await call('GET', '/webhooks')
    expect(list.json()).toEqual(expect.arrayContaining([expect.objectContaining({ id: body.id })]))
    expect(list.body).not.toContain(body.secret.slice(6))
    // Sealed under the server's SECRET: a copy of the database alone cannot sign.
    const stored = await server.ctx.db.execute<{ secret: string }>(
      sql`SELECT secret FROM webhook_endpoints WHERE id = ${body.id}`,
    )
    expect(stored.rows[0]?.secret).toMatch(/^v1:/)
    expect(stored.rows[0]?.secret).not.toContain(body.secret.slice(6))
  })

  it('updates, disables and deletes an endpoint', async () => {
    const call = callAs(server, account)
    const { id } = (await call('POST', '/webhooks', { url: 'https://a.example.com/', eventTypes: ['*'] })).json()
    const updated = await call('PATCH', `/webhooks/${id}`, {
      url: 'https://b.example.com/hook',
      eventTypes: ['segment.*'],
      enabled: false,
    })
    expect(updated.statusCode).toBe(200)
    expect(updated.json()).toMatchObject({
      url: 'https://b.example.com/hook',
      eventTypes: ['segment.*'],
      enabled: false,
      warnings: [],
    })
    expect((await call('DELETE', `/webhooks/${id}`)).statusCode).toBe(204)
    expect((await call('GET', `/webhooks/${id}`)).json()).toEqual(notFoundBody('Webhook'))
  })

  it('accepts a custom event name nobody has tracked, and says so in warnings', async () => {
    const call = callAs(server, account)
    const created = await call('POST', '/webhooks', {
      url: 'https://hooks.example.com/',
      eventTypes: ['order.paid', 'invoice.*', 'email.sent'],
    })
    expect(created.statusCode).toBe(201)
    expect(created.json().warnings).toEqual([
      expect.stringContaining('"order.paid"'),
      expect.stringContaining('"invoice.*"'),
    ])
    // Once tracked, the name is known.
    const tracked = await call('POST', '/v1/track', { email: 'buyer@example.com', event: 'order.paid' })
    expect(tracked.statusCode).toBe(200)
    const again = await call('PATCH', `/webhooks/${created.json().id}`, { eventTypes: ['order.paid'] })
    expect(again.json().warnings).toEqual([])
  })

  it('rotates the secret: a new one, answered once, with the old one valid for a day', async () => {
    const call = callAs(server, account)
    const created = (await call('POST', '/webhooks', { url: 'https://a.example.com/', eventTypes: ['*'] })).json()
    const rotated = await call('POST', `/webhooks/${created.id}/rotate-secret`)
    expect(rotated.statusCode).toBe(200)
    const { secret, previousSecretExpiresAt } = rotated.json()
    expect(secret).toMatch(/^whsec_/)
    expect(secret).not.toBe(created.secret)
    const overlapHours = (Date.parse(previousSecretExpiresAt) - Date.now()) / 3_600_000
    expect(overlapHours).toBeGreaterThan(23.9)
    expect(overlapHours).toBeLessThanOrEqual(24)
    expect((await call('GET', `/webhooks/${created.id}`)).json().previousSecretExpiresAt).toBe(previousSecretExpiresAt)
  })

  it('lets a private address through only with WEBHOOK_ALLOW_PRIVATE', async () => {
    const created = await callAs(server, account)('POST', '/webhooks', {
      url: 'http://127.0.0.1:8080/hook',
      eventTypes: ['*'],
    })
    expect(created.statusCode).toBe(201)
  })
})

describe('rejects', () => {
  it.each([
    ['ftp://example.com/hook', 'url must be an absolute http:// or https:// URL'],
    ['not a url', 'url must be an absolute http:// or https:// URL'],
    ['https://user:pass@example.com/hook', expect.stringContaining('must not carry credentials')],
  ])('refuses the URL %s', async (url, message) => {
    const response = await callAs(server, account)('POST', '/webhooks', { url, eventTypes: ['*'] })
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(validationBody('url', message))
  })

  it.each([
    ['http://127.0.0.1/hook', 'loopback'],
    ['http://localhost:3000/hook', 'loopback'],
    ['http://10.1.2.3/hook', 'private network'],
    ['http://[::1]/hook', 'loopback'],
    ['http://169.254.169.254/latest/meta-data', 'link-local'],
  ])('refuses %s without WEBHOOK_ALLOW_PRIVATE', async (url, range) => {
    const owner = await createAccount(strict)
    const response = await callAs(strict, owner)('POST', '/webhooks', { url, eventTypes: ['*'] })
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(validationBody('url', expect.stringContaining(`(${range})`)))
    expect((await callAs(strict, owner)('GET', '/webhooks')).json()).toEqual([])
  })

  it('refuses link-local even with WEBHOOK_ALLOW_PRIVATE: it is the cloud metadata service', async () => {
    const response = await callAs(server, account)('POST', '/webhooks', {
      url: 'http://169.254.169.254/',
      eventTypes: ['*'],
    })
    expect(response.statusCode).toBe(422)
  })

  it('refuses an empty list of event types and one with spaces', async () => {
    const call = callAs(server, account)
    const empty = await call('POST', '/webhooks', { url: 'https://a.example.com/', eventTypes: [] })
    expect(empty.statusCode).toBe(422)
    expect(empty.json()).toEqual(validationBody('eventTypes', expect.stringContaining('at least one')))
    const spaced = await call('POST', '/webhooks', { url: 'https://a.example.com/', eventTypes: ['email sent'] })
    expect(spaced.statusCode).toBe(422)
    expect(spaced.json()).toEqual(validationBody('eventTypes.0', expect.stringContaining('spaces')))
  })

  it('refuses a non-uuid id with 422', async () => {
    const response = await callAs(server, account)('GET', '/webhooks/not-a-uuid')
    expect(response.statusCode).toBe(422)
  })
})

describe('scoping', () => {
  it('another project’s key gets 404 on every route, and the endpoint is unchanged', async () => {
    const owner = await createAccount(server)
    const other = await createAccount(server)
    const created = (
      await callAs(server, owner)('POST', '/webhooks', { url: 'https://a.example.com/', eventTypes: ['*'] })
    ).json()
    await callAs(server, owner)('POST', `/webhooks/${created.id}/test`)
    const [message] = (await callAs(server, owner)('GET', `/webhooks/${created.id}/messages`)).json().data
    expect(message).toBeDefined()
    const id = created.id
    const routes: [Parameters<ReturnType<typeof callAs>>[0], string, object?, string?][] = [
      ['GET', `/webhooks/${id}`],
      ['PATCH', `/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/rotate-secret`],
      ['GET', `/webhooks/${id}/messages`],
      ['GET', `/webhooks/${id}/messages/${message.id}`],
      ['POST', `/webhooks/${id}/messages/${message.id}/retry`],
      [
        'POST',
        `/webhooks/${id}/replay`,
        { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() },
      ],
      ['POST', `/webhooks/${id}/test`],
    ]
    for (const [method, url, payload] of routes) {
      const response = await callAs(server, other)(method, url, payload)
      expect(response.statusCode, `${method} ${url}`).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Webhook'))
    }
    // A message id of this project under another of its endpoints is as missing as none.
    const mine = (
      await callAs(server, other)('POST', '/webhooks', { url: 'https://b.example.com/', eventTypes: ['*'] })
    ).json()
    const crossed = await callAs(server, other)('GET', `/webhooks/${mine.id}/messages/${message.id}`)
    expect(crossed.json()).toEqual(notFoundBody('Webhook message'))
    expect((await callAs(server, other)('GET', '/webhooks')).json()).toEqual([expect.objectContaining({ id: mine.id })])

    const after = await callAs(server, owner)('GET', `/webhooks/${id}`)
    expect(after.json()).toMatchObject({ enabled: true, previousSecretExpiresAt: null })
    const detail = await callAs(server, owner)('GET', `/webhooks/${id}/messages/${message.id}`)
    expect(detail.json()).toMatchObject({ id: message.id, status: 'PENDING', attemptCount: 0 })
    const missing = await callAs(server, owner)('GET', `/webhooks/${randomUUID()}`)
    expect(missing.json()).toEqual(notFoundBody('Webhook'))
  })

  it('needs a key or a session: none gets 401, a public key gets 401', async () => {
    for (const [method, url] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
    ] as const) {
      const none = await server.app.inject({ method, url })
      expect(none.statusCode).toBe(401)
      const publicKey = await server.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${account.publicKey}` },
      })
      expect(publicKey.statusCode).toBe(401)
    }
  })
})
