import diagnostics from 'node:diagnostics_channel'
import type { RouteOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { AuthScope } from '../../src/http/auth.js'
import { adminQuery } from '../helpers/database.js'
import { type Account, bearer, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

/**
 * Text PostgreSQL cannot store (NUL, unpaired surrogates) is refused at the edge on every route, in every
 * text position: the route table is read from the server itself, so a new route is probed (or, if it takes
 * a body, must be given one below) without anyone remembering to.
 */

type Route = { method: string; url: string; auth: AuthScope | undefined; body?: z.ZodType; query?: z.ZodType }

const routes: Route[] = []
let server: TestServer
let account: Account

function collectRoutes(message: unknown): void {
  const { fastify } = message as { fastify: { addHook(name: 'onRoute', hook: (route: RouteOptions) => void): void } }
  fastify.addHook('onRoute', (route) => {
    const schema = route.schema as { body?: z.ZodType; querystring?: z.ZodType } | undefined
    for (const method of [route.method].flat()) {
      routes.push({ method, url: route.url, auth: route.config?.auth, body: schema?.body, query: schema?.querystring })
    }
  })
}

beforeAll(async () => {
  // Fastify announces each new instance on this channel before any route exists (its documented test hook).
  diagnostics.subscribe('fastify.initialization', collectRoutes)
  try {
    server = await startTestServer({ worker: false })
  } finally {
    diagnostics.unsubscribe('fastify.initialization', collectRoutes)
  }
  account = await createAccount(server)
  await createContact(server, account, { data: { plan: 'pro' } })
})
afterAll(async () => {
  await server.close()
})

/** HEAD runs its GET route's hooks; the swagger UI's static files take no input. */
const probed = () => routes.filter((route) => route.method !== 'HEAD' && !route.url.startsWith('/docs'))

const someId = '8c5e1f9a-3f55-4f86-9c8e-1b2d3c4e5f60'

/** A step whose config carries text in every kind of position: a URL, a header and a JSON body. */
const webhookStep = {
  type: 'WEBHOOK',
  name: 'Notify',
  config: { url: 'https://example.com/{{ data.plan }}', headers: { 'X-Plan': '{{ data.plan }}' }, body: { a: 'b' } },
}

/** A valid body per route that takes one; every string and object in it is probed. */
const bodies: Record<string, Record<string, unknown>> = {
  'POST /auth/signup': { email: 'new@example.com', password: 'correct horse battery' },
  'POST /auth/login': { email: 'old@example.com', password: 'correct horse battery' },
  'POST /users/@me/projects': { name: 'Shop' },
  'PATCH /users/@me/projects/:id': { name: 'Shop', tracking: 'ENABLED' },
  'POST /users/@me/projects/:id/regenerate-keys': {},
  'POST /users/@me/projects/:id/security/resume': {},
  'POST /users/@me/projects/:id/reset': { confirm: 'Shop' },
  'PUT /users/@me/projects/:id/billing-limits': { transactional: 1, campaigns: null, workflows: null, inbound: null },
  'POST /users/@me/projects/:id/checkout': {},
  'POST /users/@me/projects/:id/billing-portal': {},
  'POST /auth/verify-email': { token: 'ab'.repeat(32) },
  'POST /auth/request-verification': {},
  'POST /auth/request-password-reset': { email: 'a@example.com' },
  'POST /auth/reset-password': { token: 'ab'.repeat(32), newPassword: 'a long new password' },
  'POST /auth/accept-invitation': { token: 'invitation-token' },
  'POST /projects/:id/members': { email: 'a@example.com', role: 'MEMBER' },
  'PATCH /projects/:id/members/:userId': { role: 'ADMIN' },
  'POST /projects/:id/invitations/:invitationId/resend': {},
  'POST /contacts': { email: 'a@example.com', subscribed: true, data: { note: 'hello', tags: ['vip'] } },
  'POST /contacts/lookup': { emails: ['a@example.com'] },
  'POST /contacts/bulk-subscribe': { contactIds: [someId] },
  'POST /contacts/bulk-unsubscribe': { contactIds: [someId] },
  'POST /contacts/bulk-delete': { contactIds: [someId] },
  'PATCH /contacts/:id': { email: 'a@example.com', snoozedUntil: '2030-01-01T00:00:00Z', data: { note: 'hi' } },
  'POST /v1/track': { email: 'a@example.com', event: 'signed-up', data: { plan: 'pro' } },
  'POST /events/track': { email: 'a@example.com', event: 'signed-up', data: { plan: 'pro' } },
  'POST /v1/send': {
    to: [{ name: 'Ann', email: 'ann@example.com' }],
    subject: 'Hello',
    body: '<p>Hello</p>',
    from: { name: 'Shop', email: 'shop@example.com' },
    name: 'Ann',
    data: { note: 'hi' },
    headers: { 'X-Foo': 'bar' },
    reply: 'help@example.com',
    attachments: [{ filename: 'a.txt', content: 'aGk=', contentType: 'text/plain' }],
  },
  'POST /unsubscribe/:token': { subscribed: 'false' },
  'POST /subscribe/:token': { subscribed: 'true' },
  'POST /manage/:token': { subscribed: 'true' },
  'POST /domains': { domain: 'example.com', projectId: someId },
  'PUT /domains/:id/return-path': { domain: 'bounce.example.com' },
  'POST /v1/verify': { email: 'a@example.com' },
  'POST /mcp': {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'list_contacts', arguments: { search: 'a' } },
  },
  'POST /templates': { name: 'Welcome', description: 'first', subject: 'Hi', body: '<p>Hi</p>', from: 'a@example.com' },
  'PATCH /templates/:id': { name: 'Welcome', subject: 'Hi', fromName: 'Shop', replyTo: 'b@example.com' },
  'POST /segments': {
    name: 'Pro',
    description: 'paying',
    condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
  },
  'PATCH /segments/:id': {
    name: 'Pro',
    condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
  },
  'POST /segments/:id/members': { emails: ['a@example.com'] },
  'DELETE /segments/:id/members': { emails: ['a@example.com'] },
  'POST /segments/:id/compute': {},
  'POST /segments/:id/refresh': {},
  'POST /segments/preview': {
    condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
  },
  'POST /templates/:id/duplicate': {},
  'POST /templates/preview': { subject: 'Hi {{ email }}', body: '<p>Hi</p>', contactId: someId },
  'POST /suppressions': { email: 'a@example.com', reason: 'bounce' },
  'POST /campaigns': {
    name: 'Launch',
    description: 'spring',
    subject: 'Hi {{ name }}',
    body: '<p>Hi</p>',
    from: 'a@example.com',
    fromName: 'Shop',
    replyTo: 'b@example.com',
    audienceType: 'FILTERED',
    audienceCondition: {
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
    },
  },
  'PUT /campaigns/:id': { name: 'Launch', subject: 'Hi', fromName: 'Shop', audienceType: 'SEGMENT', segmentId: someId },
  'POST /campaigns/:id/duplicate': {},
  'POST /campaigns/:id/test': { email: 'a@example.com' },
  'POST /campaigns/:id/send': { scheduledFor: '2030-01-01T00:00:00Z' },
  'POST /campaigns/:id/cancel': {},
  'POST /campaigns/audience/count': {
    audienceType: 'FILTERED',
    audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'a' }] }] },
  },
  'POST /workflows': { name: 'Welcome', eventName: 'signed-up', description: 'first mail' },
  'PATCH /workflows/:id': { name: 'Welcome', description: 'first mail', triggerConfig: { eventName: 'joined' } },
  'POST /workflows/:id/duplicate': {},
  'POST /workflows/:id/steps': { ...webhookStep, position: { x: 0, y: 0 } },
  'PATCH /workflows/:id/steps/:stepId': { name: 'Notify', config: { amount: 1, unit: 'days' } },
  'POST /workflows/:id/transitions': { fromStepId: someId, toStepId: someId, condition: { branch: 'yes' } },
  'POST /workflows/:id/transitions/:transitionId/insert-step': webhookStep,
  'POST /workflows/:id/executions': { contactId: someId, context: { plan: 'pro' } },
  'POST /workflows/:id/executions/cancel-all': {},
  'POST /webhooks/email-provider': { Type: 'Notification', Message: '{"notificationType":"Bounce"}' },
  'POST /webhooks': { url: 'https://hooks.example.com/in', description: 'CRM', eventTypes: ['email.*', 'order.paid'] },
  'PATCH /webhooks/:id': { url: 'https://hooks.example.com/in', description: 'CRM', eventTypes: ['contact.*'] },
  'POST /webhooks/:id/rotate-secret': {},
  'POST /webhooks/:id/test': {},
  'POST /webhooks/:id/messages/:messageId/retry': {},
  'POST /webhooks/:id/replay': { from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' },
}

/** Routes that take a body but not JSON, with where their text is checked instead. */
const otherBodies: Record<string, string> = {
  'POST /auth/logout': 'takes no body: it ends the session its cookie names',
  'POST /contacts/import': 'a multipart CSV upload; its cells are checked per row (import-text.test.ts)',
  'POST /uploads/image':
    'a multipart image upload; its one stored text, the file name, refuses NUL and every control character (uploads.test.ts)',
  'POST /webhooks/incoming/billing':
    "Stripe's raw signed bytes; anything not signed with the webhook secret is refused before it is parsed",
}

const routeKey = (route: Route) => `${route.method} ${route.url}`
const takesBody = (route: Route) => ['POST', 'PUT', 'PATCH'].includes(route.method)

function headersFor(auth: AuthScope | undefined): Record<string, string> {
  if (auth === 'user') return { cookie: account.cookie }
  if (auth === 'track') return bearer(account.publicKey)
  if (auth === 'secret' || auth === 'project') return bearer(account.secretKey)
  return {}
}

const paramNames = (url: string) => [...url.matchAll(/:(\w+)|\*/g)].map((match) => match[1] ?? '*')

/** The path parameter naming the project, on routes that take it from the path (the caller's own project). */
function projectParamOf(route: Route): string | undefined {
  return server.app.routeAccess.find((access) => access.method === route.method && access.url === route.url)
    ?.projectParam
}

/** The route's URL with `bad` (already URL-encoded) as `param` and harmless values elsewhere. */
function urlWith(route: Route, param?: string, bad?: string): string {
  const projectParam = projectParamOf(route)
  return route.url.replace(/:(\w+)|\*/g, (_whole, name: string | undefined) =>
    (name ?? '*') === param && bad !== undefined
      ? bad
      : name === projectParam
        ? account.project.id
        : name
          ? someId
          : 'token',
  )
}

const nul = 'a\u0000b'
const lone = 'a\ud800b'
const bads = [
  ['NUL', nul, /NUL character/],
  ['lone surrogate', lone, /unpaired UTF-16 surrogate/],
] as const

/** Every string leaf (its value replaced) and every object (a bad key added), with the field path expected. */
function* bodyProbes(value: unknown, bad: string, path: (string | number)[] = []): Generator<[unknown, string]> {
  const field = (...keys: (string | number)[]) => [...path, ...keys].join('.')
  if (typeof value === 'string') yield [bad, field()]
  else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      for (const [probe, at] of bodyProbes(item, bad, [...path, index])) {
        yield [value.map((other, position) => (position === index ? probe : other)), at]
      }
    }
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    yield [{ ...record, [bad]: 'x' }, field(bad)]
    for (const [key, item] of Object.entries(record)) {
      for (const [probe, at] of bodyProbes(item, bad, [...path, key])) yield [{ ...record, [key]: probe }, at]
    }
  }
}

function refusal(status: number, code: string, message: string, field: string, reason: RegExp) {
  return {
    success: false,
    error: {
      code,
      message,
      statusCode: status,
      requestId: expect.any(String),
      errors: [{ field, code: 'invalid_string', message: expect.stringMatching(reason) }],
    },
    timestamp: expect.any(String),
  }
}

/** Every row of every table, hashed: what a refused request must leave exactly as it was. */
async function databaseFingerprint(): Promise<Record<string, string>> {
  const url = server.config.databaseUrl ?? ''
  const tables = await adminQuery(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
  const fingerprint: Record<string, string> = {}
  for (const { tablename } of tables.rows as { tablename: string }[]) {
    const result = await adminQuery(
      url,
      `SELECT count(*) || ':' || coalesce(md5(string_agg(md5(t::text), '' ORDER BY md5(t::text))), '') AS hash
       FROM "${tablename}" t`,
    )
    fingerprint[tablename] = (result.rows[0] as { hash: string }).hash
  }
  return fingerprint
}

describe('the route table', () => {
  it('gives every route that takes a JSON body a probe body, and names no route that is gone', () => {
    const keys = probed().map(routeKey)
    const missing = probed()
      .filter((route) => takesBody(route) && !(routeKey(route) in bodies) && !(routeKey(route) in otherBodies))
      .map(routeKey)
    expect(missing, 'add a valid body for each new route to `bodies`').toEqual([])
    expect([...Object.keys(bodies), ...Object.keys(otherBodies)].filter((key) => !keys.includes(key))).toEqual([])
    expect(keys.length).toBeGreaterThan(60)
  })

  it('holds bodies that each route accepts as they are, so every probed position is a real field', () => {
    for (const route of probed()) {
      const body = bodies[routeKey(route)]
      if (body && route.body) expect(route.body.safeParse(body).error, routeKey(route)).toBeUndefined()
    }
  })
})

describe('unstorable text is refused everywhere, and changes nothing', () => {
  let before: Record<string, string>
  beforeAll(async () => {
    before = await databaseFingerprint()
  })

  it('in any JSON body string or key: 422 naming the field path', async () => {
    let probes = 0
    for (const route of probed()) {
      const body = bodies[routeKey(route)]
      if (!body) continue
      for (const [kind, bad, reason] of bads) {
        for (const [payload, field] of bodyProbes(body, bad)) {
          const response = await server.app.inject({
            method: route.method as 'POST',
            url: urlWith(route),
            headers: { ...headersFor(route.auth), 'content-type': 'application/json' },
            payload: JSON.stringify(payload),
          })
          const label = `${routeKey(route)} ${kind} at ${JSON.stringify(field)}: ${response.body.slice(0, 300)}`
          expect(response.statusCode, label).toBe(422)
          expect(response.json(), label).toEqual(
            refusal(422, 'VALIDATION_ERROR', 'Request validation failed', field, reason),
          )
          probes++
        }
      }
    }
    expect(probes).toBeGreaterThan(150)
  })

  it('in any query parameter, declared or not: 400 naming the parameter', async () => {
    for (const route of probed()) {
      const declared = route.query && 'shape' in route.query ? Object.keys(route.query.shape as object) : []
      for (const name of [...declared, 'unknown']) {
        const response = await server.app.inject({
          method: route.method as 'GET',
          url: `${urlWith(route)}?${name}=a%00b`,
          headers: headersFor(route.auth),
        })
        const label = `${routeKey(route)} ?${name}: ${response.body.slice(0, 300)}`
        expect(response.statusCode, label).toBe(400)
        expect(response.json(), label).toEqual(
          refusal(400, 'BAD_REQUEST', 'Invalid query parameters', name, /NUL character/),
        )
      }
    }
  })

  it('in any path parameter: 422 naming the parameter', async () => {
    for (const route of probed()) {
      for (const name of paramNames(route.url)) {
        const response = await server.app.inject({
          method: route.method as 'GET',
          url: urlWith(route, name, 'a%00b'),
          headers: headersFor(route.auth),
        })
        const label = `${routeKey(route)} :${name}: ${response.body.slice(0, 300)}`
        expect(response.statusCode, label).toBe(422)
        expect(response.json(), label).toEqual(
          refusal(422, 'VALIDATION_ERROR', 'Invalid path parameters', name, /NUL character/),
        )
      }
    }
  })

  it('a lone surrogate cannot reach a path parameter: its UTF-8 bytes do not decode (400)', async () => {
    for (const route of probed()) {
      for (const name of paramNames(route.url)) {
        const response = await server.app.inject({
          method: route.method as 'GET',
          url: urlWith(route, name, 'a%ED%A0%80b'),
          headers: headersFor(route.auth),
        })
        expect(response.statusCode, `${routeKey(route)} :${name}`).toBe(400)
        expect(response.json().error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/URL/) })
      }
    }
  })

  it('a form body (the subscription pages) is checked like JSON', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/manage/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'subscribed=a%00b',
    })
    expect(response.json()).toEqual(
      refusal(422, 'VALIDATION_ERROR', 'Request validation failed', 'subscribed', /NUL character/),
    )
  })

  it('left every table as it was', async () => {
    expect(await databaseFingerprint()).toEqual(before)
  })
})

describe('what is still accepted', () => {
  it('a query parameter whose bytes are not UTF-8 stays literal text, never a lone surrogate', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/contacts?search=%ED%A0%80',
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().data).toEqual([])
  })

  it('paired surrogates (emoji) and other control characters are stored and read back', async () => {
    const data = { note: 'ship it 🚀', tab: 'a\tb', bell: 'a\u0007b', 'key 😀': 'x' }
    const contact = await createContact(server, account, { data })
    expect(contact.data).toEqual(data)
  })

  it('a deeply nested body is walked without overflowing the stack', async () => {
    const depth = 100_000
    const payload = `{"email":"deep@example.com","data":{"n":${'['.repeat(depth)}"a\\u0000"${']'.repeat(depth)}}}`
    const response = await server.app.inject({
      method: 'POST',
      url: '/contacts',
      headers: { ...bearer(account.secretKey), 'content-type': 'application/json' },
      payload,
    })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors[0].field).toBe(`data.n.${Array(depth).fill(0).join('.')}`)
  })
})
