import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { templates } from '../../src/db/schema/index.js'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import type { TemplateView } from '../../src/modules/templates/schemas.js'
import type { TestDnsServer } from '../helpers/dns-server.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { expectSecretKeyRequired, notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
let dns: TestDnsServer
let account: Account
let domain: DomainView

let env: ServerWithDns

beforeAll(async () => {
  env = await startServerWithDns()
  ;({ server, dns } = env)
  account = await createAccount(server)
  domain = await addVerifiedDomain(server, dns, account, `tpl-${process.pid}.mailroom.test`)
})
afterAll(() => env?.close())

function validTemplate(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Welcome',
    subject: 'Welcome {{ firstName ?? "friend" }}',
    body: '<p>Hi {{ firstName }}</p>',
    from: `hello@${domain.domain}`,
    ...overrides,
  }
}

async function create(owner: Account, payload: Record<string, unknown>, target = server) {
  return target.app.inject({ method: 'POST', url: '/templates', headers: bearer(owner.secretKey), payload })
}

async function createOk(owner: Account, overrides: Record<string, unknown> = {}): Promise<TemplateView> {
  const response = await create(owner, validTemplate(overrides))
  expect(response.statusCode, response.body).toBe(201)
  return response.json<TemplateView>()
}

async function list(owner: Account, query: string) {
  return server.app.inject({ method: 'GET', url: `/templates?${query}`, headers: bearer(owner.secretKey) })
}

async function storedTemplate(id: string) {
  const [row] = await server.ctx.db.select().from(templates).where(eq(templates.id, id))
  return row
}

describe('templates: accepts', () => {
  it('creates a template with every spec field, MARKETING by default', async () => {
    const response = await create(
      account,
      validTemplate({ description: 'first mail', fromName: 'Shop', replyTo: 'help@example.com' }),
    )
    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      id: expect.any(String),
      name: 'Welcome',
      description: 'first mail',
      subject: 'Welcome {{ firstName ?? "friend" }}',
      body: '<p>Hi {{ firstName }}</p>',
      from: `hello@${domain.domain}`,
      fromName: 'Shop',
      replyTo: 'help@example.com',
      type: 'MARKETING',
      projectId: account.project.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
  })

  it('reads, updates and deletes a template', async () => {
    const template = await createOk(account)
    const url = `/templates/${template.id}`
    const read = await server.app.inject({ method: 'GET', url, headers: bearer(account.secretKey) })
    expect(read.json()).toEqual(template)

    const patch = await server.app.inject({
      method: 'PATCH',
      url,
      headers: bearer(account.secretKey),
      payload: { name: 'Renamed', type: 'TRANSACTIONAL', description: null },
    })
    expect(patch.statusCode).toBe(200)
    expect(patch.json()).toMatchObject({ id: template.id, name: 'Renamed', type: 'TRANSACTIONAL', body: template.body })

    const removed = await server.app.inject({ method: 'DELETE', url, headers: bearer(account.secretKey) })
    expect(removed.statusCode).toBe(204)
    const gone = await server.app.inject({ method: 'GET', url, headers: bearer(account.secretKey) })
    expect(gone.statusCode).toBe(404)
    expect(gone.json()).toEqual(notFoundBody('Template'))
  })

  it('pages, filters, searches and sorts the list', async () => {
    const owner = await createAccount(server)
    const ownDomain = await addVerifiedDomain(server, dns, owner, `list-${process.pid}.mailroom.test`)
    const from = `news@${ownDomain.domain}`
    const alpha = await createOk(owner, { from, name: 'Alpha', type: 'TRANSACTIONAL', description: 'Password RESET' })
    const bravo = await createOk(owner, { from, name: 'Bravo', subject: 'Your receipt' })
    const charlie = await createOk(owner, { from, name: 'Charlie' })

    const first = (await list(owner, 'pageSize=2')).json()
    expect(first).toMatchObject({ page: 1, pageSize: 2, total: 3, totalPages: 2 })
    expect(first.data.map((t: TemplateView) => t.id)).toEqual([charlie.id, bravo.id])
    const second = (await list(owner, 'pageSize=2&page=2')).json()
    expect(second.data.map((t: TemplateView) => t.id)).toEqual([alpha.id])

    const names = async (query: string) => (await list(owner, query)).json().data.map((t: TemplateView) => t.name)
    expect(await names('sort=name&dir=asc')).toEqual(['Alpha', 'Bravo', 'Charlie'])
    expect(await names('sort=bogus&dir=sideways')).toEqual(['Charlie', 'Bravo', 'Alpha'])
    expect(await names('type=TRANSACTIONAL')).toEqual(['Alpha'])
    expect(await names('search=password reset')).toEqual(['Alpha'])
    expect(await names('search=RECEIPT')).toEqual(['Bravo'])
    expect(await names('search=100%25')).toEqual([])
    expect((await list(owner, 'pageSize=5000')).json()).toMatchObject({ pageSize: 100, total: 3, totalPages: 1 })
  })

  it('duplicates a template under a new id', async () => {
    const template = await createOk(account, { name: 'Receipt' })
    const response = await server.app.inject({
      method: 'POST',
      url: `/templates/${template.id}/duplicate`,
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(201)
    const copy = response.json<TemplateView>()
    expect(copy.id).not.toBe(template.id)
    expect(copy).toMatchObject({
      name: 'Receipt (copy)',
      subject: template.subject,
      body: template.body,
      from: template.from,
    })
  })

  it('reports where a template is used', async () => {
    const template = await createOk(account)
    const response = await server.app.inject({
      method: 'GET',
      url: `/templates/${template.id}/usage`,
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ campaigns: [], workflows: [] })
  })

  it('in capture mode accepts a registered domain before its DNS is verified, but not an unregistered one', async () => {
    const capture = await startTestServer({
      config: { dnsServers: [dns.address], mailTransport: 'capture' },
      worker: false,
    })
    try {
      const owner = await createAccount(capture)
      const pending = await addDomain(capture, owner, `capture-${process.pid}.mailroom.test`)
      const accepted = await create(owner, validTemplate({ from: `hi@${pending.domain}` }), capture)
      expect(accepted.statusCode).toBe(201)
      const refused = await create(owner, validTemplate({ from: 'hi@unregistered.mailroom.test' }), capture)
      expect(refused.statusCode).toBe(403)
    } finally {
      await capture.close()
    }
  })
})

describe('templates: rejects', () => {
  it('answers a missing required field with the plain 400 body', async () => {
    const missing = await create(account, { name: 'x', body: '<p>x</p>', subject: '  ' })
    expect(missing.statusCode).toBe(400)
    expect(missing.json()).toEqual({ error: 'Missing required fields: subject, from' })
    const empty = await server.app.inject({ method: 'POST', url: '/templates', headers: bearer(account.secretKey) })
    expect(empty.statusCode).toBe(400)
    expect(empty.json()).toEqual({ error: 'Missing required fields: name, subject, body, from' })
  })

  it('rejects header injection and malformed fields with 422 field errors', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ subject: 'Hi\r\nBcc: victim@example.com' }, 'subject', 'invalid_string'],
      [{ fromName: 'Shop\nBcc: victim@example.com' }, 'fromName', 'invalid_string'],
      [{ subject: 'x'.repeat(999) }, 'subject', 'too_big'],
      [{ from: 'not-an-email' }, 'from', 'invalid_string'],
      [{ replyTo: 'nope' }, 'replyTo', 'invalid_string'],
      [{ type: 'NEWSLETTER' }, 'type', 'invalid_enum_value'],
    ]
    for (const [overrides, field, code] of cases) {
      const response = await create(account, validTemplate(overrides))
      expect(response.statusCode, field).toBe(422)
      expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field, code }] })
    }
    const patch = await server.app.inject({
      method: 'PATCH',
      url: `/templates/${(await createOk(account)).id}`,
      headers: bearer(account.secretKey),
      payload: { subject: 'a\rb' },
    })
    expect(patch.statusCode).toBe(422)
  })

  it('refuses a body or subject with broken syntax, with its line and column', async () => {
    const response = await create(account, validTemplate({ body: '<p>\n  {% if vip %}VIP\n</p>' }))
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({
      success: false,
      error: {
        code: 'TEMPLATE_SYNTAX_ERROR',
        message: 'Template body has a syntax error at line 2, column 3: tag {% if vip %} not closed',
        statusCode: 400,
        requestId: expect.any(String),
        details: { field: 'body', line: 2, column: 3 },
      },
      timestamp: expect.any(String),
    })
    const subject = await create(account, validTemplate({ subject: 'Hi {{ name ' }))
    expect(subject.json().error.details).toEqual({ field: 'subject', line: 1, column: 4 })

    const template = await createOk(account)
    const patch = await server.app.inject({
      method: 'PATCH',
      url: `/templates/${template.id}`,
      headers: bearer(account.secretKey),
      payload: { body: '{{ name | nosuchfilter }}' },
    })
    expect(patch.statusCode).toBe(400)
    expect(await storedTemplate(template.id)).toMatchObject({ body: template.body })
  })

  it('refuses a sender on an unverified, unregistered or foreign domain with 403, creating nothing', async () => {
    const owner = await createAccount(server)
    const pending = await addDomain(server, owner, `pending-${process.pid}.mailroom.test`)
    const cases = [
      [`hi@${pending.domain}`, `Sender domain ${pending.domain} is not verified yet`],
      ['hi@elsewhere.mailroom.test', 'Sender domain elsewhere.mailroom.test is not registered to this project'],
      [`hi@${domain.domain}`, `Sender domain ${domain.domain} is not registered to this project`],
    ]
    for (const [from, message] of cases) {
      const response = await create(owner, validTemplate({ from }))
      expect(response.statusCode, from).toBe(403)
      expect(response.json().error).toMatchObject({ code: 'FORBIDDEN', statusCode: 403, message })
    }
    expect((await list(owner, '')).json().total).toBe(0)

    const template = await createOk(account)
    const patch = await server.app.inject({
      method: 'PATCH',
      url: `/templates/${template.id}`,
      headers: bearer(account.secretKey),
      payload: { from: `hi@${pending.domain}`, name: 'Moved' },
    })
    expect(patch.statusCode).toBe(403)
    expect(await storedTemplate(template.id)).toMatchObject({ from: template.from, name: template.name })
  })

  it('keeps a domain while a template sends from it', async () => {
    const owner = await createAccount(server)
    const ownDomain = await addVerifiedDomain(server, dns, owner, `inuse-${process.pid}.mailroom.test`)
    const template = await createOk(owner, { from: `Hi@${ownDomain.domain.toUpperCase()}` })
    const url = `/domains/${ownDomain.id}`
    const refused = await server.app.inject({ method: 'DELETE', url, headers: bearer(owner.secretKey) })
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toMatchObject({ code: 'CONFLICT', details: { templates: 1 } })

    await server.app.inject({ method: 'DELETE', url: `/templates/${template.id}`, headers: bearer(owner.secretKey) })
    const deleted = await server.app.inject({ method: 'DELETE', url, headers: bearer(owner.secretKey) })
    expect(deleted.statusCode).toBe(204)
  })

  it('rejects a bad page or type filter with 400', async () => {
    for (const query of ['page=0', 'pageSize=0', 'type=NEWSLETTER', 'page=abc']) {
      const response = await list(account, query)
      expect(response.statusCode, query).toBe(400)
      expect(response.json().error.code).toBe('BAD_REQUEST')
    }
  })
})

describe('templates: scoping', () => {
  it('requires the secret key (or a session) on every template route', async () => {
    const template = await createOk(account)
    const url = `/templates/${template.id}`
    for (const request of [
      { method: 'GET' as const, url: '/templates' },
      { method: 'POST' as const, url: '/templates', payload: validTemplate() },
      { method: 'GET' as const, url },
      { method: 'PATCH' as const, url, payload: { name: 'x' } },
      { method: 'DELETE' as const, url },
      { method: 'POST' as const, url: `${url}/duplicate` },
      { method: 'GET' as const, url: `${url}/usage` },
    ]) {
      await expectSecretKeyRequired(server, account, request)
    }
    expect(await storedTemplate(template.id)).toMatchObject({ name: template.name })
    const session = await server.app.inject({
      method: 'GET',
      url,
      headers: { cookie: account.cookie, 'x-project-id': account.project.id },
    })
    expect(session.statusCode).toBe(200)
  })

  it("cannot read, change, copy or delete another project's template, which stays unchanged", async () => {
    const template = await createOk(account)
    const before = await storedTemplate(template.id)
    const stranger = await createAccount(server)
    const url = `/templates/${template.id}`
    for (const request of [
      { method: 'GET' as const, url },
      { method: 'PATCH' as const, url, payload: { name: 'Stolen' } },
      { method: 'DELETE' as const, url },
      { method: 'POST' as const, url: `${url}/duplicate` },
      { method: 'GET' as const, url: `${url}/usage` },
    ]) {
      const response = await server.app.inject({ ...request, headers: bearer(stranger.secretKey) })
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Template'))
    }
    expect(await storedTemplate(template.id)).toEqual(before)
    expect((await list(stranger, '')).json().total).toBe(0)
  })

  it('rejects a template id that is not a uuid with 422', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/templates/abc',
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors[0]).toMatchObject({ field: 'id', code: 'invalid_string' })
  })
})
