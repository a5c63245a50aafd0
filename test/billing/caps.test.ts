import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { addDomain } from '../helpers/domains.js'
import { type Account, bearer, callAs, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { billingCall, emailCount, eventsNamed, noLimits, setLimits, usageOf } from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

/** An account with a sender domain (capture mode lets a registered domain send). */
async function sender(): Promise<{ account: Account; from: string }> {
  const account = await createAccount(server)
  const domain = await addDomain(server, account, `caps-${account.project.id.slice(0, 8)}.example.com`)
  return { account, from: `hello@${domain.domain}` }
}

function send(account: Account, from: string, to: string | string[] = uniqueEmail('to')) {
  return server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(account.secretKey),
    payload: { to, from, subject: 'Hi', body: '<p>Hi</p>' },
  })
}

function limitBody(limit: number, usage: number) {
  return expect.objectContaining({
    success: false,
    error: expect.objectContaining({
      code: 'BILLING_LIMIT_EXCEEDED',
      statusCode: 403,
      requestId: expect.any(String),
      message: expect.stringContaining('transactional'),
      details: expect.objectContaining({ category: 'transactional', limit, usage }),
    }),
    timestamp: expect.any(String),
  })
}

describe('billing limits: reading and setting caps', () => {
  it('a new project has no caps and no usage', async () => {
    const account = await createAccount(server)
    const response = await billingCall(server, account)('GET', 'billing-limits')
    expect(response.statusCode).toBe(200)
    const empty = { limit: null, usage: 0, percentage: 0, isWarning: false, isBlocked: false }
    expect(response.json()).toEqual({
      transactional: empty,
      campaigns: empty,
      workflows: empty,
      inbound: empty,
      currency: null,
    })
  })

  it('PUT sets all four caps and GET reads them back', async () => {
    const account = await createAccount(server)
    const limits = { transactional: 100, campaigns: 0, workflows: 1_000_000_000, inbound: null }
    const put = await billingCall(server, account)('PUT', 'billing-limits', limits)
    expect(put.statusCode).toBe(200)
    const get = await billingCall(server, account)('GET', 'billing-limits')
    expect(get.json()).toMatchObject({
      transactional: { limit: 100 },
      campaigns: { limit: 0 },
      workflows: { limit: 1_000_000_000 },
      inbound: { limit: null },
    })
  })

  it('rejects a cap of -1, a string, a fraction, a huge number or a missing key with 422, and changes nothing', async () => {
    const account = await createAccount(server)
    await setLimits(server, account, { transactional: 7 })
    const bad: [Record<string, unknown>, string][] = [
      [{ ...noLimits, transactional: -1 }, 'transactional'],
      [{ ...noLimits, campaigns: '10' }, 'campaigns'],
      [{ ...noLimits, workflows: 1.5 }, 'workflows'],
      [{ ...noLimits, inbound: 1e12 }, 'inbound'],
      [{ ...noLimits, transactional: Number.MAX_SAFE_INTEGER * 10 }, 'transactional'],
      [{ transactional: 5, campaigns: null, workflows: null }, 'inbound'],
    ]
    for (const [body, field] of bad) {
      const response = await billingCall(server, account)('PUT', 'billing-limits', body)
      expect(response.statusCode, JSON.stringify(body)).toBe(422)
      expect(response.json()).toMatchObject({
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          statusCode: 422,
          errors: expect.arrayContaining([expect.objectContaining({ field })]),
        },
      })
    }
    const malformed = await server.app.inject({
      method: 'PUT',
      url: `/users/@me/projects/${account.project.id}/billing-limits`,
      headers: { cookie: account.cookie, 'content-type': 'application/json' },
      payload: '{"transactional": ',
    })
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json().error.code).toBe('INVALID_JSON')
    const get = await billingCall(server, account)('GET', 'billing-limits')
    expect(get.json()).toMatchObject({ transactional: { limit: 7 }, campaigns: { limit: null } })
  })

  it('a member may read but not set caps; another user sees 404; nothing changes', async () => {
    const owner = await createAccount(server)
    const member = await createAccount(server)
    const stranger = await createAccount(server)
    await server.ctx.db.execute(
      sql`INSERT INTO memberships (project_id, user_id, role) VALUES (${owner.project.id}, ${member.userId}, 'MEMBER')`,
    )
    await setLimits(server, owner, { transactional: 10 })
    const asMember = billingCall(server, member)
    expect((await asMember('GET', 'billing-limits', undefined, owner.project.id)).statusCode).toBe(200)
    expect((await asMember('GET', 'billing-consumption', undefined, owner.project.id)).statusCode).toBe(200)
    const put = await asMember('PUT', 'billing-limits', { ...noLimits, transactional: 1 }, owner.project.id)
    expect(put.statusCode).toBe(403)
    expect(put.json().error.code).toBe('FORBIDDEN')
    for (const [method, path, body] of [
      ['GET', 'billing-limits', undefined],
      ['PUT', 'billing-limits', noLimits],
      ['GET', 'billing-consumption', undefined],
    ] as const) {
      const response = await billingCall(server, stranger)(method, path, body, owner.project.id)
      expect(response.statusCode).toBe(404)
      expect(response.json().error.code).toBe('NOT_FOUND')
    }
    const get = await billingCall(server, owner)('GET', 'billing-limits')
    expect(get.json().transactional.limit).toBe(10)
  })

  it('the caps and consumption need a session: no cookie is 401', async () => {
    const account = await createAccount(server)
    const response = await server.app.inject({
      method: 'GET',
      url: `/users/@me/projects/${account.project.id}/billing-limits`,
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(401)
  })
})

describe('billing caps: /v1/send', () => {
  it('counts accepted emails and refuses the send beyond the cap with 403 BILLING_LIMIT_EXCEEDED, queueing nothing', async () => {
    const { account, from } = await sender()
    await setLimits(server, account, { transactional: 3 })
    for (let n = 0; n < 3; n++) expect((await send(account, from)).statusCode).toBe(200)
    const refused = await send(account, from)
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual(limitBody(3, 3))
    expect(await emailCount(server, account.project.id)).toBe(3)

    const consumption = await billingCall(server, account)('GET', 'billing-consumption')
    expect(consumption.statusCode).toBe(200)
    expect(consumption.json()).toMatchObject({
      period: { start: expect.stringMatching(/^\d{4}-\d{2}-01$/), end: expect.stringMatching(/^\d{4}-\d{2}-01$/) },
      usage: {
        total: 3,
        records: expect.arrayContaining([{ category: 'transactional', usage: 3, limit: 3, percentage: 100 }]),
      },
    })
    const limits = await billingCall(server, account)('GET', 'billing-limits')
    expect(limits.json().transactional).toEqual({
      limit: 3,
      usage: 3,
      percentage: 100,
      isWarning: true,
      isBlocked: true,
    })
  })

  it('a request with more recipients than the cap has left is refused whole', async () => {
    const { account, from } = await sender()
    await setLimits(server, account, { transactional: 3 })
    expect((await send(account, from, [uniqueEmail('a'), uniqueEmail('b')])).statusCode).toBe(200)
    const refused = await send(account, from, [uniqueEmail('c'), uniqueEmail('d')])
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual(limitBody(3, 2))
    expect(await emailCount(server, account.project.id)).toBe(2)
    expect(await usageOf(server, account.project.id, 'transactional')).toBe(2)
    // One still fits.
    expect((await send(account, from, [uniqueEmail('e')])).statusCode).toBe(200)
  })

  it('concurrent sends never pass the cap: exactly the cap is accepted and counted', async () => {
    const { account, from } = await sender()
    await setLimits(server, account, { transactional: 25 })
    const responses = await Promise.all(Array.from({ length: 60 }, () => send(account, from)))
    const statuses = responses.map((response) => response.statusCode)
    expect(statuses.filter((status) => status === 200)).toHaveLength(25)
    expect(statuses.filter((status) => status === 403)).toHaveLength(35)
    expect(await emailCount(server, account.project.id)).toBe(25)
    expect(await usageOf(server, account.project.id, 'transactional')).toBe(25)
  })

  it('without a cap every concurrent send is counted and none refused; a cap set later sees all of them', async () => {
    const { account, from } = await sender()
    const responses = await Promise.all(Array.from({ length: 40 }, () => send(account, from)))
    expect(responses.map((response) => response.statusCode)).toEqual(Array(40).fill(200))
    expect(await usageOf(server, account.project.id, 'transactional')).toBe(40)
    const consumption = await billingCall(server, account)('GET', 'billing-consumption')
    expect(consumption.json().usage.records).toContainEqual({
      category: 'transactional',
      usage: 40,
      limit: null,
      percentage: 0,
    })

    await setLimits(server, account, { transactional: 42 })
    const capped = await Promise.all(Array.from({ length: 5 }, () => send(account, from)))
    expect(capped.filter((response) => response.statusCode === 200)).toHaveLength(2)
    expect(await emailCount(server, account.project.id)).toBe(42)
  })

  it('emits one billing.limit_warning event at 80 % per period and category', async () => {
    const { account, from } = await sender()
    await setLimits(server, account, { transactional: 10 })
    for (let n = 0; n < 7; n++) await send(account, from)
    expect(await eventsNamed(server, account.project.id, 'billing.limit_warning')).toEqual([])
    await send(account, from)
    await send(account, from)
    expect(await eventsNamed(server, account.project.id, 'billing.limit_warning')).toEqual([
      expect.objectContaining({ category: 'transactional', limit: 10, usage: 8, percentage: 80 }),
    ])
    const tracked = await server.app.inject({
      method: 'POST',
      url: '/v1/track',
      headers: bearer(account.secretKey),
      payload: { email: uniqueEmail('x'), event: 'billing.limit_warning' },
    })
    expect(tracked.statusCode).toBe(422)
  })

  it("one project's cap does not limit another project", async () => {
    const capped = await sender()
    const free = await sender()
    await setLimits(server, capped.account, { transactional: 0 })
    expect((await send(capped.account, capped.from)).statusCode).toBe(403)
    expect((await send(free.account, free.from)).statusCode).toBe(200)
  })
})

describe('billing caps: campaigns', () => {
  async function campaignOf(account: Account, from: string): Promise<string> {
    const response = await callAs(server, account)('POST', '/campaigns', {
      name: 'News',
      subject: 'News',
      body: '<p>News</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
      from,
      audienceType: 'ALL',
    })
    expect(response.statusCode, response.body).toBe(201)
    return response.json().data.id
  }

  it('a campaign whose audience would pass the cap refuses to start, and starts once the cap allows it', async () => {
    const { account, from } = await sender()
    for (let n = 0; n < 3; n++) await createContact(server, account, { subscribed: true })
    await setLimits(server, account, { campaigns: 2 })
    const id = await campaignOf(account, from)
    const refused = await callAs(server, account)('POST', `/campaigns/${id}/send`)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error).toMatchObject({
      code: 'BILLING_LIMIT_EXCEEDED',
      details: { category: 'campaigns', limit: 2, usage: 0, requested: 3 },
    })
    const later = await callAs(server, account)('POST', `/campaigns/${id}/send`, {
      scheduledFor: new Date(Date.now() + 3_600_000).toISOString(),
    })
    expect(later.statusCode).toBe(403)
    expect((await callAs(server, account)('GET', `/campaigns/${id}`)).json().data.status).toBe('DRAFT')
    expect(await emailCount(server, account.project.id)).toBe(0)
    expect(await usageOf(server, account.project.id, 'campaigns')).toBe(0)

    await setLimits(server, account, { campaigns: 3 })
    const sent = await callAs(server, account)('POST', `/campaigns/${id}/send`)
    expect(sent.statusCode, sent.body).toBe(200)
    expect(await usageOf(server, account.project.id, 'campaigns')).toBe(3)
    await vi.waitFor(async () => expect(await emailCount(server, account.project.id)).toBe(3), {
      timeout: 15_000,
      interval: 50,
    })
  })

  it('a scheduled campaign that no longer fits when its time comes goes back to DRAFT with an event', async () => {
    const { account, from } = await sender()
    for (let n = 0; n < 2; n++) await createContact(server, account, { subscribed: true })
    await setLimits(server, account, { campaigns: 5 })
    const id = await campaignOf(account, from)
    const scheduled = await callAs(server, account)('POST', `/campaigns/${id}/send`, {
      scheduledFor: new Date(Date.now() + 3_600_000).toISOString(),
    })
    expect(scheduled.statusCode, scheduled.body).toBe(200)
    await setLimits(server, account, { campaigns: 1 })
    await server.ctx.db.execute(sql`UPDATE campaigns SET scheduled_for = now() - interval '1 second' WHERE id = ${id}`)
    await vi.waitFor(
      async () => expect((await callAs(server, account)('GET', `/campaigns/${id}`)).json().data.status).toBe('DRAFT'),
      { timeout: 15_000, interval: 100 },
    )
    expect(await eventsNamed(server, account.project.id, 'billing.campaign_blocked')).toEqual([
      expect.objectContaining({ campaignId: id, category: 'campaigns' }),
    ])
    expect(await emailCount(server, account.project.id)).toBe(0)
  })
})
