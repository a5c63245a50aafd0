import { count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { campaigns, contacts, segments } from '../../src/db/schema/index.js'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import type { TestDnsServer } from '../helpers/dns-server.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount, createContact, type Method } from '../helpers/factories.js'
import { itRequiresTheSecretKey, notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import {
  addMembers,
  type CampaignJson,
  campaignBody,
  createCampaignOk,
  insertSegment,
  setCampaign,
  storedCampaign,
} from './campaign-fixtures.js'

let env: ServerWithDns
let server: TestServer
let dns: TestDnsServer
let account: Account
let domain: DomainView

beforeAll(async () => {
  env = await startServerWithDns({ worker: false })
  ;({ server, dns } = env)
  account = await createAccount(server)
  domain = await addVerifiedDomain(server, dns, account, `campaigns-${process.pid}.mailroom.test`)
})
afterAll(() => env?.close())

const someId = '0b7f2c1e-8a4d-4c3b-9f1e-2d3c4b5a6978'

function call(owner: Account, method: Method, url: string, payload?: unknown) {
  return server.app.inject({
    method,
    url,
    headers: bearer(owner.secretKey),
    ...(payload === undefined ? {} : { payload: payload as object }),
  })
}

/** A new account with a verified domain of its own, so counts and lists start empty. */
async function freshAccount(): Promise<{ owner: Account; from: string; domainId: string }> {
  const owner = await createAccount(server)
  const own = await addVerifiedDomain(server, dns, owner, `c${Math.random().toString(36).slice(2, 10)}.mailroom.test`)
  return { owner, from: `news@${own.domain}`, domainId: own.id }
}

const body = (overrides: Record<string, unknown> = {}) => campaignBody(`news@${domain.domain}`, overrides)
const create = (overrides: Record<string, unknown> = {}) => createCampaignOk(server, account, body(overrides))
const plan = (value: unknown) => ({
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value }] }],
})

function postFiltered(owner: Account, from: string, audienceCondition: unknown) {
  return call(owner, 'POST', '/campaigns', campaignBody(from, { audienceType: 'FILTERED', audienceCondition }))
}

/** A FILTERED campaign with this condition is a 422 naming exactly these fields. */
async function expectConditionRefused(owner: Account, from: string, condition: unknown, fields: string[]) {
  const response = await postFiltered(owner, from, condition)
  expect(response.statusCode, fields.join()).toBe(422)
  expect(response.json().error.code).toBe('VALIDATION_ERROR')
  expect(response.json().error.errors.map((error: { field: string }) => error.field)).toEqual(fields)
}

async function campaignCount(projectId: string): Promise<number> {
  const [row] = await server.ctx.db.select({ n: count() }).from(campaigns).where(eq(campaigns.projectId, projectId))
  return row?.n ?? 0
}

describe('campaigns: accepts', () => {
  it('creates a DRAFT with every spec field in a {success, data} envelope, counting its audience', async () => {
    const { owner, from } = await freshAccount()
    await createContact(server, owner, { subscribed: true })
    await createContact(server, owner, { subscribed: true })
    await createContact(server, owner, { subscribed: false })
    const response = await call(
      owner,
      'POST',
      '/campaigns',
      campaignBody(from, { description: 'Q2', fromName: 'Shop', replyTo: 'help@example.com' }),
    )
    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        name: 'Spring launch',
        description: 'Q2',
        subject: 'Hello {{ firstName ?? "friend" }}',
        body: '<p>Hi {{ firstName }}</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
        from,
        fromName: 'Shop',
        replyTo: 'help@example.com',
        type: 'MARKETING',
        status: 'DRAFT',
        audienceType: 'ALL',
        audienceCondition: null,
        segmentId: null,
        segment: null,
        scheduledFor: null,
        sentAt: null,
        totalRecipients: 2,
        sentCount: 0,
        deliveredCount: 0,
        openedCount: 0,
        clickedCount: 0,
        bouncedCount: 0,
        complainedCount: 0,
        unsubscribedCount: 0,
        progress: null,
        projectId: owner.project.id,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    })
  })

  it('stores only the companion field the audience type uses, and counts each audience', async () => {
    const { owner, from } = await freshAccount()
    const pro = await createContact(server, owner, { subscribed: true, data: { plan: 'pro' } })
    await createContact(server, owner, { subscribed: true, data: { plan: 'free' } })
    const segmentId = await insertSegment(server, owner.project.id, { name: 'VIP' })
    await addMembers(server, segmentId, [pro.id])

    const segment = await createCampaignOk(
      server,
      owner,
      campaignBody(from, { audienceType: 'SEGMENT', segmentId, audienceCondition: plan('free') }),
    )
    expect(segment).toMatchObject({
      audienceType: 'SEGMENT',
      segmentId,
      segment: { id: segmentId, name: 'VIP' },
      audienceCondition: null,
      totalRecipients: 1,
    })
    const filtered = await createCampaignOk(
      server,
      owner,
      campaignBody(from, { audienceType: 'FILTERED', audienceCondition: plan('free'), segmentId }),
    )
    expect(filtered).toMatchObject({ audienceCondition: plan('free'), segmentId: null, totalRecipients: 1 })
    const all = await createCampaignOk(server, owner, campaignBody(from, { segmentId, audienceCondition: plan('x') }))
    expect(all).toMatchObject({ audienceCondition: null, segmentId: null, totalRecipients: 2 })
  })

  it('reads, partly updates and deletes a campaign', async () => {
    const campaign = await create()
    const read = await call(account, 'GET', `/campaigns/${campaign.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.json()).toEqual({ success: true, data: campaign })

    const updated = await call(account, 'PUT', `/campaigns/${campaign.id}`, { name: 'Summer', fromName: 'Team' })
    expect(updated.statusCode).toBe(200)
    expect(updated.json()).toEqual({
      success: true,
      data: { ...campaign, name: 'Summer', fromName: 'Team', updatedAt: expect.any(String) },
    })

    const deleted = await call(account, 'DELETE', `/campaigns/${campaign.id}`)
    expect(deleted.statusCode).toBe(200)
    expect(deleted.json()).toEqual({ success: true, message: 'Campaign deleted successfully' })
    expect((await call(account, 'GET', `/campaigns/${campaign.id}`)).json()).toEqual(notFoundBody('Campaign'))
  })

  it('counts the audience again when an update changes it, also while SCHEDULED', async () => {
    const { owner, from } = await freshAccount()
    await createContact(server, owner, { subscribed: true, data: { plan: 'pro' } })
    await createContact(server, owner, { subscribed: false, data: { plan: 'pro' } })
    await createContact(server, owner, { subscribed: true, data: { plan: 'free' } })
    const campaign = await createCampaignOk(server, owner, campaignBody(from))
    expect(campaign.totalRecipients).toBe(2)
    const url = `/campaigns/${campaign.id}`

    const filtered = await call(owner, 'PUT', url, { audienceType: 'FILTERED', audienceCondition: plan('pro') })
    expect(filtered.json().data).toMatchObject({ audienceType: 'FILTERED', totalRecipients: 1 })
    // A transactional campaign reaches unsubscribed contacts too (DESIGN.md §4).
    const transactional = await call(owner, 'PUT', url, { type: 'TRANSACTIONAL' })
    expect(transactional.json().data).toMatchObject({ type: 'TRANSACTIONAL', totalRecipients: 2 })

    await setCampaign(server, campaign.id, { status: 'SCHEDULED', scheduledFor: new Date(Date.now() + 3_600_000) })
    const scheduled = await call(owner, 'PUT', url, { audienceType: 'ALL', type: 'MARKETING' })
    expect(scheduled.statusCode).toBe(200)
    expect(scheduled.json().data).toMatchObject({ status: 'SCHEDULED', audienceCondition: null, totalRecipients: 2 })
  })

  it('pages, filters by status, searches name, subject and sender, and sorts the list', async () => {
    const { owner, from } = await freshAccount()
    const names = ['alpha 100%', 'beta', 'gamma', 'delta_x', 'epsilon']
    const created: CampaignJson[] = []
    for (const name of names) {
      created.push(await createCampaignOk(server, owner, campaignBody(from, { name, subject: `About ${name}` })))
    }
    const [alpha, beta, gamma, delta] = created
    if (!alpha || !beta || !gamma || !delta) throw new Error('setup')
    await setCampaign(server, beta.id, { status: 'SENT' })
    await setCampaign(server, gamma.id, { status: 'SENT' })
    const list = async (query: string) => {
      const response = await call(owner, 'GET', `/campaigns?${query}`)
      expect(response.statusCode, query).toBe(200)
      return response.json<{
        data: CampaignJson[]
        page: number
        pageSize: number
        total: number
        totalPages: number
      }>()
    }

    const first = await list('pageSize=2')
    expect(first).toMatchObject({ page: 1, pageSize: 2, total: 5, totalPages: 3 })
    expect(first.data.map((item) => item.name)).toEqual(['epsilon', 'delta_x'])
    expect((await list('pageSize=2&page=3')).data.map((item) => item.name)).toEqual(['alpha 100%'])
    expect((await list('pageSize=1000')).pageSize).toBe(100)

    const sent = await list('status=SENT&sort=name&dir=asc')
    expect(sent.data.map((item) => item.name)).toEqual(['beta', 'gamma'])
    expect(sent.total).toBe(2)
    expect((await list('sort=name&dir=asc')).data.map((item) => item.name)).toEqual([
      'alpha 100%',
      'beta',
      'delta_x',
      'epsilon',
      'gamma',
    ])

    expect((await list('search=GAMMA')).data.map((item) => item.id)).toEqual([gamma.id])
    expect((await list('search=about%20beta')).data.map((item) => item.id)).toEqual([beta.id])
    expect((await list(`search=${encodeURIComponent(from.toUpperCase())}`)).total).toBe(5)
    // LIKE wildcards in a search are literal characters.
    expect((await list('search=%25')).data.map((item) => item.id)).toEqual([alpha.id])
    expect((await list('search=a_x')).data.map((item) => item.id)).toEqual([delta.id])
    expect((await list('search=_')).data.map((item) => item.id)).toEqual([delta.id])
    // Unknown parameters (Plunk's own client sends limit and cursor) and sort values are ignored.
    const ignored = await list('limit=1&cursor=abc&sort=nonsense&dir=sideways')
    expect(ignored.total).toBe(5)
    expect(ignored.data[0]?.name).toBe('epsilon')
  })

  it('lists a segment campaign with its segment id and name', async () => {
    const { owner, from } = await freshAccount()
    const segmentId = await insertSegment(server, owner.project.id, { name: 'Early birds' })
    await createCampaignOk(server, owner, campaignBody(from, { audienceType: 'SEGMENT', segmentId }))
    const list = await call(owner, 'GET', '/campaigns')
    expect(list.json().data[0]).toMatchObject({ segmentId, segment: { id: segmentId, name: 'Early birds' } })
  })

  it('duplicates a campaign as a new DRAFT named "(Copy)" with no schedule and no results', async () => {
    const { owner, from } = await freshAccount()
    await createContact(server, owner, { subscribed: true })
    const original = await createCampaignOk(server, owner, campaignBody(from, { description: 'first' }))
    await setCampaign(server, original.id, {
      status: 'SENT',
      sentAt: new Date(),
      scheduledFor: new Date(),
      totalRecipients: 40,
      sentCount: 40,
      deliveredCount: 39,
      openedCount: 12,
      queuedAt: new Date(),
    })
    const response = await call(owner, 'POST', `/campaigns/${original.id}/duplicate`)
    expect(response.statusCode).toBe(201)
    const { success, message, data } = response.json()
    expect({ success, message }).toEqual({ success: true, message: 'Campaign duplicated successfully' })
    expect(data).toEqual({
      ...original,
      id: expect.any(String),
      name: 'Spring launch (Copy)',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect(data.id).not.toBe(original.id)
    expect(await storedCampaign(server, data.id)).toMatchObject({
      queuedAt: null,
      fanOutCreatedAt: null,
      fanOutContactId: null,
      failedCount: 0,
    })
  })

  it('reports stats equal to the counters, with rates in percent of sent', async () => {
    const campaign = await create()
    const rates = ['openRate', 'clickRate', 'bounceRate', 'deliveryRate', 'complaintRate', 'unsubscribeRate']
    const empty = await call(account, 'GET', `/campaigns/${campaign.id}/stats`)
    expect(empty.json()).toEqual({
      success: true,
      data: {
        totalRecipients: campaign.totalRecipients,
        ...Object.fromEntries(
          ['sent', 'captured', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed'].map(
            (name) => [`${name}Count`, 0],
          ),
        ),
        ...Object.fromEntries(rates.map((rate) => [rate, 0])),
      },
    })
    const counters = {
      totalRecipients: 300,
      sentCount: 300,
      deliveredCount: 290,
      openedCount: 100,
      clickedCount: 30,
      bouncedCount: 10,
      complainedCount: 1,
      unsubscribedCount: 3,
    }
    await setCampaign(server, campaign.id, { status: 'SENT', ...counters, failedCount: 0 })
    const stats = await call(account, 'GET', `/campaigns/${campaign.id}/stats`)
    expect(stats.statusCode).toBe(200)
    expect(stats.json()).toEqual({
      success: true,
      data: {
        ...counters,
        // Counters set by hand: nothing went through the capture transport.
        capturedCount: 0,
        openRate: 33.33,
        clickRate: 10,
        bounceRate: 3.33,
        deliveryRate: 96.67,
        complaintRate: 0.33,
        unsubscribeRate: 1,
      },
    })
  })

  it('shows the progress of a SENDING campaign from its counters', async () => {
    const campaign = await create()
    const url = `/campaigns/${campaign.id}`
    await setCampaign(server, campaign.id, { status: 'SENDING', totalRecipients: 100, sentCount: 60, failedCount: 5 })
    expect((await call(account, 'GET', url)).json().data.progress).toEqual({
      queued: null,
      sent: 60,
      failed: 5,
      remaining: 35,
    })
    await setCampaign(server, campaign.id, { queuedAt: new Date() })
    expect((await call(account, 'GET', url)).json().data.progress).toEqual({
      queued: 35,
      sent: 60,
      failed: 5,
      remaining: 35,
    })
  })

  it('deletes a SCHEDULED campaign, which was never sent', async () => {
    const campaign = await create()
    await setCampaign(server, campaign.id, { status: 'SCHEDULED', scheduledFor: new Date(Date.now() + 60_000) })
    expect((await call(account, 'DELETE', `/campaigns/${campaign.id}`)).statusCode).toBe(200)
    expect(await storedCampaign(server, campaign.id)).toBeUndefined()
  })

  it('in capture mode accepts a registered domain before its DNS is verified, but not an unregistered one', async () => {
    const capture = await startTestServer({
      config: { dnsServers: [dns.address], mailTransport: 'capture' },
      worker: false,
    })
    try {
      const owner = await createAccount(capture)
      const pending = await addDomain(capture, owner, `capture-${process.pid}.mailroom.test`)
      await createCampaignOk(capture, owner, campaignBody(`hi@${pending.domain}`))
      const refused = await capture.app.inject({
        method: 'POST',
        url: '/campaigns',
        headers: bearer(owner.secretKey),
        payload: campaignBody('hi@unregistered.mailroom.test'),
      })
      expect(refused.statusCode).toBe(403)
    } finally {
      await capture.close()
    }
  })

  it('keeps a domain while an unsent campaign sends from it', async () => {
    const { owner, from, domainId } = await freshAccount()
    const campaign = await createCampaignOk(server, owner, campaignBody(from))
    const refused = await call(owner, 'DELETE', `/domains/${domainId}`)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toMatchObject({ code: 'CONFLICT', details: { templates: 0, campaigns: 1 } })
    await setCampaign(server, campaign.id, { status: 'SENT' })
    expect((await call(owner, 'DELETE', `/domains/${domainId}`)).statusCode).toBe(204)
  })
})

describe('campaigns: rejects', () => {
  it('answers a SEGMENT without segmentId or a FILTERED without audienceCondition with 400, creating nothing', async () => {
    const { owner, from } = await freshAccount()
    for (const [audienceType, field] of [
      ['SEGMENT', 'segmentId'],
      ['FILTERED', 'audienceCondition'],
    ] as const) {
      const response = await call(owner, 'POST', '/campaigns', campaignBody(from, { audienceType, [field]: null }))
      const message = `${field} is required when audienceType is ${audienceType}`
      expect(response.statusCode).toBe(400)
      expect(response.json()).toEqual({
        success: false,
        error: {
          code: 'BAD_REQUEST',
          message,
          statusCode: 400,
          requestId: expect.any(String),
          errors: [{ field, code: 'required', message }],
        },
        timestamp: expect.any(String),
      })
    }
    const campaign = await createCampaignOk(server, owner, campaignBody(from))
    const put = await call(owner, 'PUT', `/campaigns/${campaign.id}`, { audienceType: 'SEGMENT', name: 'Changed' })
    expect(put.statusCode).toBe(400)
    expect(await campaignCount(owner.project.id)).toBe(1)
    expect(await storedCampaign(server, campaign.id)).toMatchObject({ audienceType: 'ALL', name: campaign.name })
  })

  it('rejects missing required fields and malformed ones with 422 field errors', async () => {
    const missing = await call(account, 'POST', '/campaigns', {})
    expect(missing.statusCode).toBe(422)
    expect(
      missing
        .json()
        .error.errors.map((error: { field: string }) => error.field)
        .sort(),
    ).toEqual(['audienceType', 'body', 'from', 'name', 'subject'])
    const cases: [Record<string, unknown>, string, string][] = [
      [{ subject: 'Hi\r\nBcc: victim@example.com' }, 'subject', 'invalid_string'],
      [{ from: 'not-an-email' }, 'from', 'invalid_string'],
      [{ audienceType: 'EVERYONE' }, 'audienceType', 'invalid_enum_value'],
      [{ type: 'NEWSLETTER' }, 'type', 'invalid_enum_value'],
      [{ audienceType: 'SEGMENT', segmentId: 'abc' }, 'segmentId', 'invalid_string'],
    ]
    for (const [overrides, field, code] of cases) {
      const response = await call(account, 'POST', '/campaigns', body(overrides))
      expect(response.statusCode, field).toBe(422)
      expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field, code }] })
    }
  })

  it('rejects a bad audience condition with 422 and the path of the bad filter, creating nothing', async () => {
    const { owner, from } = await freshAccount()
    const tree = (filter: Record<string, unknown>) => ({
      logic: 'AND',
      groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'a' }] }, { filters: [filter] }],
    })
    const at = 'audienceCondition.groups.1.filters.0'
    const cases: [Record<string, unknown>, string][] = [
      [{ field: 'data.plan', operator: 'resembles', value: 'x' }, `${at}.operator`],
      [{ field: 'password', operator: 'equals', value: 'x' }, `${at}.field`],
      [{ field: 'event.signup', operator: 'equals', value: 'x' }, `${at}.operator`],
      [{ field: 'data.age', operator: 'greaterThan', value: { gt: 1 } }, `${at}.value`],
      [{ field: 'createdAt', operator: 'within', value: 3 }, `${at}.unit`],
    ]
    for (const [filter, field] of cases) {
      await expectConditionRefused(owner, from, tree(filter), [field])
    }
    const response = await postFiltered(owner, from, tree({ field: 'data.plan', operator: 'resembles', value: 'x' }))
    expect(response.json()).toEqual({
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Request validation failed',
        statusCode: 422,
        requestId: expect.any(String),
        errors: [{ field: `${at}.operator`, code: 'invalid_enum_value', message: expect.any(String) }],
      },
      timestamp: expect.any(String),
    })
    expect(await campaignCount(owner.project.id)).toBe(0)
  })

  it('rejects condition trees past the documented depth and size limits with 422', async () => {
    const { owner, from } = await freshAccount()
    let deep: Record<string, unknown> = plan('pro')
    for (let level = 0; level < 50; level++) deep = { logic: 'AND', groups: [{ filters: [], conditions: deep }] }
    const huge = {
      logic: 'OR',
      groups: Array.from({ length: 200 }, (_, group) => ({
        filters: Array.from({ length: 20 }, (_, index) => ({
          field: `data.k${index}`,
          operator: 'equals',
          value: group,
        })),
      })),
    }
    // The sixth level is past the limit of five; it is named by its path.
    const sixth = ['audienceCondition', ...Array(5).fill('groups.0.conditions')].join('.')
    await expectConditionRefused(owner, from, deep, [sixth])
    await expectConditionRefused(owner, from, huge, ['audienceCondition.groups'])
    expect(await campaignCount(owner.project.id)).toBe(0)
  })

  it('keeps SQL- and Liquid-looking strings as data: stored verbatim, matched literally, nothing executed', async () => {
    const { owner, from } = await freshAccount()
    const hostile = "x'); DROP TABLE contacts; --"
    const liquid = '{{ project.secret }}{% raw %}'
    await createContact(server, owner, { subscribed: true, data: { plan: hostile } })
    await createContact(server, owner, { subscribed: true, data: { plan: 'pro' } })
    const condition = {
      logic: 'OR',
      groups: [
        { filters: [{ field: 'data.plan', operator: 'equals', value: hostile }] },
        { filters: [{ field: 'data.plan', operator: 'equals', value: liquid }] },
      ],
    }
    const campaign = await createCampaignOk(
      server,
      owner,
      campaignBody(from, {
        name: hostile,
        description: liquid,
        audienceType: 'FILTERED',
        audienceCondition: condition,
      }),
    )
    expect(campaign).toMatchObject({
      name: hostile,
      description: liquid,
      audienceCondition: condition,
      totalRecipients: 1,
    })
    const [row] = await server.ctx.db
      .select({ n: count() })
      .from(contacts)
      .where(eq(contacts.projectId, owner.project.id))
    expect(row?.n).toBe(2)
    const search = await call(owner, 'GET', `/campaigns?search=${encodeURIComponent("'); DROP")}`)
    expect(search.json().total).toBe(1)
  })

  it('answers a segment of another project, or a deleted one, with 404, creating nothing', async () => {
    const { owner, from } = await freshAccount()
    const stranger = await createAccount(server)
    const foreign = await insertSegment(server, stranger.project.id)
    const deleted = await insertSegment(server, owner.project.id)
    await server.ctx.db.delete(segments).where(eq(segments.id, deleted))
    for (const segmentId of [foreign, deleted]) {
      const response = await call(
        owner,
        'POST',
        '/campaigns',
        campaignBody(from, { audienceType: 'SEGMENT', segmentId }),
      )
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Segment'))
    }
    const campaign = await createCampaignOk(server, owner, campaignBody(from))
    const put = await call(owner, 'PUT', `/campaigns/${campaign.id}`, { audienceType: 'SEGMENT', segmentId: foreign })
    expect(put.statusCode).toBe(404)
    expect(await campaignCount(owner.project.id)).toBe(1)
    expect(await storedCampaign(server, campaign.id)).toMatchObject({ audienceType: 'ALL', segmentId: null })
  })

  it("rejects a condition naming another project's segment, or a missing one, with 422 at that filter", async () => {
    const { owner, from } = await freshAccount()
    const stranger = await createAccount(server)
    const foreign = await insertSegment(server, stranger.project.id)
    for (const filter of [
      { field: 'segment', operator: 'memberOfSegment', value: foreign },
      { field: `segment.${someId}`, operator: 'notMemberOfSegment' },
    ]) {
      const audienceCondition = { logic: 'AND', groups: [{ filters: [filter] }] }
      await expectConditionRefused(owner, from, audienceCondition, ['audienceCondition.groups.0.filters.0.field'])
    }
    expect(await campaignCount(owner.project.id)).toBe(0)
  })

  it('refuses a sender on an unverified, unregistered or foreign domain with 403, on create and update', async () => {
    const { owner, from } = await freshAccount()
    const pending = await addDomain(server, owner, `pending-${process.pid}.mailroom.test`)
    const cases = [
      [`hi@${pending.domain}`, `Sender domain ${pending.domain} is not verified yet`],
      ['hi@elsewhere.mailroom.test', 'Sender domain elsewhere.mailroom.test is not registered to this project'],
      [`hi@${domain.domain}`, `Sender domain ${domain.domain} is not registered to this project`],
    ]
    for (const [sender, message] of cases) {
      const response = await call(owner, 'POST', '/campaigns', campaignBody(sender ?? ''))
      expect(response.statusCode, sender).toBe(403)
      expect(response.json().error).toMatchObject({ code: 'FORBIDDEN', statusCode: 403, message })
    }
    expect(await campaignCount(owner.project.id)).toBe(0)
    const campaign = await createCampaignOk(server, owner, campaignBody(from))
    const put = await call(owner, 'PUT', `/campaigns/${campaign.id}`, { from: `hi@${pending.domain}`, name: 'Moved' })
    expect(put.statusCode).toBe(403)
    expect(await storedCampaign(server, campaign.id)).toMatchObject({ from, name: campaign.name })
  })

  it('refuses a subject or body with broken Liquid, with its line and column', async () => {
    const response = await call(account, 'POST', '/campaigns', body({ body: '<p>\n  {% if vip %}VIP\n</p>' }))
    expect(response.statusCode).toBe(400)
    expect(response.json().error).toMatchObject({
      code: 'TEMPLATE_SYNTAX_ERROR',
      details: { field: 'body', line: 2, column: 3 },
    })
    const subject = await call(account, 'POST', '/campaigns', body({ subject: 'Hi {{ name ' }))
    expect(subject.json().error.details).toEqual({ field: 'subject', line: 1, column: 4 })
    const campaign = await create()
    const put = await call(account, 'PUT', `/campaigns/${campaign.id}`, { body: '{{ name | nosuchfilter }}' })
    expect(put.statusCode).toBe(400)
    expect(await storedCampaign(server, campaign.id)).toMatchObject({ body: campaign.body })
  })

  it('changes nothing once a campaign is SENDING, SENT or CANCELLED (400)', async () => {
    for (const status of ['SENDING', 'SENT', 'CANCELLED'] as const) {
      const campaign = await create()
      await setCampaign(server, campaign.id, { status })
      const before = await storedCampaign(server, campaign.id)
      const response = await call(account, 'PUT', `/campaigns/${campaign.id}`, {
        name: 'Too late',
        audienceType: 'ALL',
      })
      expect(response.statusCode, status).toBe(400)
      expect(response.json().error).toMatchObject({
        code: 'BAD_REQUEST',
        message: `Only DRAFT or SCHEDULED campaigns can be changed; this one is ${status}`,
      })
      expect(await storedCampaign(server, campaign.id)).toEqual(before)
    }
  })

  it('refuses to delete a SENDING campaign (409) or a sent or cancelled one (400)', async () => {
    for (const [status, code] of [
      ['SENDING', 409],
      ['SENT', 400],
      ['CANCELLED', 400],
    ] as const) {
      const campaign = await create()
      await setCampaign(server, campaign.id, { status })
      const response = await call(account, 'DELETE', `/campaigns/${campaign.id}`)
      expect(response.statusCode, status).toBe(code)
      expect(response.json().error.code).toBe(code === 409 ? 'CONFLICT' : 'BAD_REQUEST')
      expect(await storedCampaign(server, campaign.id)).toMatchObject({ status })
    }
  })

  it('rejects an unknown status filter or a bad page with 400', async () => {
    for (const query of ['status=DONE', 'status=draft', 'page=0', 'pageSize=0', 'page=abc']) {
      const response = await call(account, 'GET', `/campaigns?${query}`)
      expect(response.statusCode, query).toBe(400)
      expect(response.json().error.code).toBe('BAD_REQUEST')
    }
  })

  it('rejects an id that is not a uuid with 422 on every campaign route', async () => {
    for (const [method, suffix, payload] of [
      ['GET', '', undefined],
      ['PUT', '', { name: 'x' }],
      ['DELETE', '', undefined],
      ['POST', '/duplicate', undefined],
      ['POST', '/test', { email: account.email }],
      ['GET', '/stats', undefined],
    ] as const) {
      const response = await call(account, method, `/campaigns/not-a-uuid${suffix}`, payload)
      expect(response.statusCode, `${method} ${suffix}`).toBe(422)
      expect(response.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'id', code: 'invalid_string' }],
      })
    }
  })
})

describe('campaigns: scoping', () => {
  itRequiresTheSecretKey(
    () => server,
    [
      ['GET', '/campaigns'],
      ['POST', '/campaigns', { name: 'x' }],
      ['GET', `/campaigns/${someId}`],
      ['PUT', `/campaigns/${someId}`, { name: 'x' }],
      ['DELETE', `/campaigns/${someId}`],
      ['POST', `/campaigns/${someId}/duplicate`],
      ['POST', `/campaigns/${someId}/test`, { email: 'a@example.com' }],
      ['GET', `/campaigns/${someId}/stats`],
    ],
  )

  it("cannot see, change, copy, test, count or delete another project's campaign, which stays unchanged", async () => {
    const campaign = await create()
    const before = await storedCampaign(server, campaign.id)
    const stranger = await createAccount(server)
    const url = `/campaigns/${campaign.id}`
    for (const [method, path, payload] of [
      ['GET', url, undefined],
      ['PUT', url, { name: 'Stolen' }],
      ['DELETE', url, undefined],
      ['POST', `${url}/duplicate`, undefined],
      ['POST', `${url}/test`, { email: stranger.email }],
      ['GET', `${url}/stats`, undefined],
    ] as const) {
      const response = await call(stranger, method, path, payload)
      expect(response.statusCode, `${method} ${path}`).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Campaign'))
    }
    expect(await storedCampaign(server, campaign.id)).toEqual(before)
    expect((await call(stranger, 'GET', '/campaigns')).json().total).toBe(0)
    expect(await campaignCount(stranger.project.id)).toBe(0)
  })

  it("does not count another project's contacts in an audience", async () => {
    const { owner, from } = await freshAccount()
    const stranger = await createAccount(server)
    await createContact(server, stranger, { subscribed: true })
    expect((await createCampaignOk(server, owner, campaignBody(from))).totalRecipients).toBe(0)
  })
})
