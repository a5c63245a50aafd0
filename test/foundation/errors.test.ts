import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { z } from 'zod'
import type { App } from '../../src/http/app-type.js'
import { adminQuery } from '../helpers/database.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
let account: Account

const attachment = z.object({ filename: z.string().max(10), content: z.base64() })
const echoBody = z.object({
  subject: z.string().min(1).max(20),
  count: z.number().int(),
  attachments: z.array(attachment).max(2).optional(),
})

function routes(app: App): void {
  app.post('/echo', { config: { auth: 'secret' }, schema: { body: echoBody } }, async (request) => request.body)
  app.get(
    '/echo/:id',
    {
      config: { auth: 'secret' },
      schema: { params: z.object({ id: z.uuid() }), querystring: z.object({ n: z.coerce.number() }) },
    },
    async (request) => request.params,
  )
  app.get('/explode', { config: { auth: 'none' } }, async () => {
    throw new Error('relation "secret_table" does not exist at SELECT password FROM users')
  })
}

beforeAll(async () => {
  server = await startTestServer({ routes, worker: false })
  account = await createAccount(server)
})
afterAll(async () => {
  await server.close()
})

function post(payload: string, headers: Record<string, string> = {}) {
  return server.app.inject({
    method: 'POST',
    url: '/echo',
    payload,
    headers: { 'content-type': 'application/json', ...bearer(account.secretKey), ...headers },
  })
}

describe('error bodies', () => {
  it('malformed JSON is a 400 with the standard body and request id', async () => {
    const response = await post('{"subject": "hi",')
    expect(response.statusCode).toBe(400)
    const requestId = response.headers['x-request-id']
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(response.json()).toEqual({
      success: false,
      error: { code: 'INVALID_JSON', message: expect.stringContaining('Malformed JSON'), statusCode: 400, requestId },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    })
  })

  it('wrong types and bad nested fields are a 422 listing every field by dot path', async () => {
    const response = await post(
      JSON.stringify({
        subject: 5,
        count: 'x',
        attachments: [
          { filename: 'a.txt', content: 'aGk=' },
          { filename: 'way-too-long.txt', content: '%%' },
        ],
      }),
    )
    expect(response.statusCode).toBe(422)
    expect(response.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      statusCode: 422,
      message: 'Request validation failed',
    })
    expect(response.json().error.errors).toEqual([
      { field: 'subject', code: 'invalid_type', received: 'number', message: expect.any(String) },
      { field: 'count', code: 'invalid_type', received: 'string', message: expect.any(String) },
      { field: 'attachments.1.filename', code: 'too_big', message: expect.any(String) },
      { field: 'attachments.1.content', code: 'invalid_string', message: expect.any(String) },
    ])
  })

  it('a body that is not an object is a 422, not a 500', async () => {
    for (const payload of ['[]', '"text"', 'null', '42']) {
      const response = await post(payload)
      expect(response.statusCode, payload).toBeGreaterThanOrEqual(400)
      expect(response.statusCode, payload).toBeLessThan(500)
      expect(response.json().success).toBe(false)
    }
  })

  it('a path id that must be a uuid is 422; a bad query parameter is 400', async () => {
    const badId = await server.app.inject({ method: 'GET', url: '/echo/123?n=1', headers: bearer(account.secretKey) })
    expect(badId.statusCode).toBe(422)
    expect(badId.json().error.errors).toEqual([{ field: 'id', code: 'invalid_string', message: expect.any(String) }])
    const badQuery = await server.app.inject({
      method: 'GET',
      url: '/echo/8c5e1f9a-3f55-4f86-9c8e-1b2d3c4e5f60?n=abc',
      headers: bearer(account.secretKey),
    })
    expect(badQuery.statusCode).toBe(400)
    expect(badQuery.json().error).toMatchObject({ code: 'BAD_REQUEST', errors: [{ field: 'n', code: 'invalid_type' }] })
  })

  it('an unknown route is a 404 with the standard body', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/no/such/route' })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({
      success: false,
      error: { code: 'NOT_FOUND', message: 'Route GET /no/such/route not found', statusCode: 404 },
    })
    expect(response.headers['x-request-id']).toBe(response.json().error.requestId)
  })

  it('an unexpected failure is a 500 that reveals nothing of the cause', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/explode' })
    expect(response.statusCode).toBe(500)
    expect(response.json().error).toMatchObject({ code: 'INTERNAL_ERROR', message: 'An unexpected error occurred' })
    expect(response.body).not.toContain('secret_table')
    expect(response.body).not.toContain('stack')
  })

  it('a body over the size limit is a 413', async () => {
    const response = await post(JSON.stringify({ subject: 'x'.repeat(2 * 1024 * 1024), count: 1 }))
    expect(response.statusCode).toBe(413)
    expect(response.json().error.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('a body in another content type is a 415', async () => {
    const response = await post('subject=hi', { 'content-type': 'application/x-www-form-urlencoded' })
    expect(response.statusCode).toBe(415)
    expect(response.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE')
  })

  it('prototype poisoning in JSON is rejected with 400', async () => {
    const response = await post('{"subject":"x","count":1,"__proto__":{"admin":true}}')
    expect(response.statusCode).toBe(400)
    expect(response.json().success).toBe(false)
  })
})

describe('system routes', () => {
  it('GET /config lists the enabled integrations without authentication', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/config' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      signups: true,
      emailVerificationRequired: false,
      billing: false,
      storage: { s3: false },
      oauth: { github: false, google: false },
      inbound: false,
      transport: 'capture',
      smtpRelay: { enabled: false, reason: 'off in tests unless asked for' },
    })
  })

  it('serves the OpenAPI document generated from the route schemas, and a docs page', async () => {
    const document = await server.app.inject({ method: 'GET', url: '/openapi.json' })
    expect(document.statusCode).toBe(200)
    const spec = document.json()
    expect(spec.openapi).toMatch(/^3\./)
    expect(spec.paths['/auth/signup'].post.requestBody.content['application/json'].schema.required).toEqual([
      'email',
      'password',
    ])
    expect(Object.keys(spec.paths)).toContain('/users/@me/projects/{id}/regenerate-keys')
    // Every $ref resolves, so generators (openapi-typescript) read the document as served.
    const refs = [...JSON.stringify(spec).matchAll(/"\$ref":"([^"]*)"/g)].map((match) => match[1] ?? '')
    expect(refs).toContain('#/components/schemas/JsonValue')
    const schemas = spec.components.schemas ?? {}
    expect(refs.filter((ref) => !(ref.startsWith('#/components/schemas/') && ref.slice(21) in schemas))).toEqual([])
    const docs = await server.app.inject({ method: 'GET', url: '/docs/' })
    expect(docs.statusCode).toBe(200)
    expect(docs.headers['content-type']).toContain('text/html')
  })

  it('GET /health is 200 while the database answers and 503 when it does not', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/health' })).json()).toEqual({
      status: 'ok',
      database: 'up',
    })
    const database = new URL(server.config.databaseUrl ?? '').pathname.slice(1)
    const adminUrl = inject('adminUrl')
    await adminQuery(adminUrl, `ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS false`)
    try {
      await adminQuery(adminUrl, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`)
      const down = await server.app.inject({ method: 'GET', url: '/health' })
      expect(down.statusCode).toBe(503)
      expect(down.json()).toEqual({ status: 'unavailable', database: 'down' })
    } finally {
      await adminQuery(adminUrl, `ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS true`)
    }
    const up = await server.app.inject({ method: 'GET', url: '/health' })
    expect(up.statusCode).toBe(200)
  })
})
