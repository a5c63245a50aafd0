import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { campaigns } from '../../src/db/schema/index.js'
import type { ActivityView } from '../../src/modules/activity/schemas.js'
import { enqueueEmails } from '../../src/modules/delivery/service.js'
import { testEmail } from '../helpers/emails.js'
import { itRejectsBadQueries } from '../helpers/errors.js'
import { emailEvent, publish, waitForDispatch } from '../helpers/events.js'
import { type Account, callAs, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import { itRequiresTheSecretKey } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
const minuteMs = 60_000

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

type Page = {
  data: (Omit<ActivityView, 'timestamp'> & { timestamp: string })[]
  cursor: string
  hasMore: boolean
  total: number
}

async function feed(account: Account, query = ''): Promise<Page> {
  const response = await callAs(server, account)('GET', `/activity${query}`)
  expect(response.statusCode, response.body).toBe(200)
  return response.json<Page>()
}

async function projectEventIds(projectId: string): Promise<string[]> {
  const result = await server.ctx.db.execute<{ id: string }>(
    sql`SELECT id FROM events WHERE project_id = ${projectId} ORDER BY created_at DESC, id DESC`,
  )
  return result.rows.map((row) => row.id)
}

/** Events at chosen times (minutes before now), as rows the dispatcher has not handed out yet. */
async function insertEventsAt(projectId: string, entries: [name: string, minutesAgo: number][]): Promise<string[]> {
  const ids = entries.map(() => randomUUID())
  const now = Date.now()
  for (const [index, [name, minutesAgo]] of entries.entries()) {
    await server.ctx.db.execute(sql`
      INSERT INTO events (id, project_id, name, data, created_at)
      VALUES (${ids[index]}, ${projectId}, ${name}, '{}'::jsonb, ${new Date(now - minutesAgo * minuteMs)})`)
  }
  return ids
}

describe('GET /activity', () => {
  let account: Account
  let ada: { id: string; email: string }
  let bob: { id: string; email: string }

  beforeAll(async () => {
    account = await createAccount(server)
    ada = await createContact(server, account, { email: uniqueEmail('ada') })
    bob = await createContact(server, account, { email: uniqueEmail('bob') })
    const emailId = randomUUID()
    await publish(server, [
      emailEvent(account.project.id, ada.id, emailId, 'email.sent', { sentAt: new Date().toISOString() }),
      emailEvent(account.project.id, ada.id, emailId, 'email.open', { opens: 1, isFirstOpen: true }),
      emailEvent(account.project.id, ada.id, emailId, 'email.click', { link: 'https://example.com', clicks: 1 }),
      emailEvent(account.project.id, bob.id, randomUUID(), 'email.bounce', { bounceType: 'Permanent' }),
      { projectId: account.project.id, contactId: bob.id, name: 'signup', data: { plan: 'pro' } },
      { projectId: account.project.id, contactId: ada.id, name: 'segment.vip.entry', data: { segmentId: 'x' } },
    ])
    // Totals count whole past hours from the rollups, which take events once they are dispatched: without
    // this wait a run that crosses an hour boundary right after publishing counts 0 (countFeedTotal says so).
    await waitForDispatch(server, account.project.id)
  })

  it('pages through every activity once, newest first, while new activity arrives', async () => {
    const expected = await projectEventIds(account.project.id)
    expect(expected).toHaveLength(6)
    const seen: string[] = []
    const added: string[] = []
    let page = await feed(account, '?limit=3')
    expect(page.total).toBe(expected.length)
    for (;;) {
      seen.push(...page.data.map((item) => item.id))
      // New activity lands between page loads; it is newer than the cursor, so it never shifts the pages.
      const [published] = await publish(server, [
        { projectId: account.project.id, contactId: ada.id, name: 'page-turned', data: {} },
      ])
      if (published) added.push(published.id)
      if (!page.hasMore) break
      page = await feed(account, `?limit=3&cursor=${page.cursor}`)
      expect(page.total).toBe(0)
    }
    expect(seen).toEqual(expected)
    expect(seen.filter((id) => added.includes(id))).toEqual([])
  })

  it('shows type, time, contact and the event payload', async () => {
    const page = await feed(account, '?types=email.opened')
    expect(page.data).toEqual([
      {
        id: expect.any(String),
        type: 'email.opened',
        name: 'email.open',
        timestamp: expect.any(String),
        contact: { id: ada.id, email: ada.email },
        data: expect.objectContaining({ opens: 1, isFirstOpen: true, emailId: expect.any(String) }),
      },
    ])
  })

  it('filters by types, custom events (event.triggered) and segment moves included', async () => {
    const types = (page: Page) => page.data.map((item) => item.type)
    expect(types(await feed(account, '?types=email.clicked,email.bounced')).sort()).toEqual([
      'email.bounced',
      'email.clicked',
    ])
    const custom = await feed(account, '?types=event.triggered&limit=100')
    expect(new Set(custom.data.map((item) => item.name))).toEqual(new Set(['signup', 'page-turned']))
    expect((await feed(account, '?types=segment.entry')).data.map((item) => item.name)).toEqual(['segment.vip.entry'])
    expect(await feed(account, '?types=workflow.started')).toEqual({ data: [], cursor: '', hasMore: false, total: 0 })
  })

  it("filters by contact; another project's contact is a 404", async () => {
    const page = await feed(account, `?contactId=${bob.id}&limit=100`)
    expect(page.data.length).toBeGreaterThan(0)
    expect(page.data.every((item) => item.contact?.id === bob.id)).toBe(true)
    expect(page.data.map((item) => item.name)).toEqual(expect.arrayContaining(['email.bounce', 'signup']))

    const other = await createAccount(server)
    const response = await callAs(server, other)('GET', `/activity?contactId=${bob.id}`)
    expect(response.statusCode).toBe(404)
    expect(response.json().error).toMatchObject({ code: 'NOT_FOUND', message: 'Contact not found' })
  })

  it('filters by time range [startDate, endDate)', async () => {
    const timed = await createAccount(server)
    const [, twoHoursAgo] = await insertEventsAt(timed.project.id, [
      ['old', 180],
      ['middle', 120],
      ['recent', 30],
    ])
    await waitForDispatch(server, timed.project.id)
    const start = new Date(Date.now() - 150 * minuteMs).toISOString()
    const end = new Date(Date.now() - 60 * minuteMs).toISOString()
    const page = await feed(timed, `?startDate=${start}&endDate=${end}`)
    expect(page.data.map((item) => item.id)).toEqual([twoHoursAgo])
    expect(page.total).toBe(1)
  })

  it("another project's key sees none of it", async () => {
    const other = await createAccount(server)
    expect(await feed(other)).toEqual({ data: [], cursor: '', hasMore: false, total: 0 })
  })
})

describe('activity counts', () => {
  let account: Account

  beforeAll(async () => {
    account = await createAccount(server)
    // Whole hours of these ranges come from the rollup, the partial hours at both ends from the log.
    await insertEventsAt(account.project.id, [
      ['opened-app', 190],
      ['opened-app', 120],
      ['purchase', 90],
      ['purchase', 10],
      ['email.sent', 100],
    ])
    await waitForDispatch(server, account.project.id)
  })

  const get = (url: string) => callAs(server, account)('GET', url)
  const ago = (minutes: number) => new Date(Date.now() - minutes * minuteMs).toISOString()

  it('stats count exactly the events inside a range that does not fall on whole hours', async () => {
    const response = await get(`/activity/stats?startDate=${ago(185)}&endDate=${ago(5)}`)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      totalEvents: 4,
      totalEmailsSent: 1,
      byType: [
        { type: 'event.triggered', count: 3 },
        { type: 'email.sent', count: 1 },
      ],
    })
    const short = (await get(`/activity/stats?startDate=${ago(95)}&endDate=${ago(85)}`)).json()
    expect(short).toMatchObject({ totalEvents: 1, byType: [{ type: 'event.triggered', count: 1 }] })
  })

  it('recent-count: the last N minutes, or since a time', async () => {
    expect((await get('/activity/recent-count?minutes=60')).json()).toEqual({ count: 1, since: expect.any(String) })
    expect((await get(`/activity/recent-count?since=${ago(150)}`)).json()).toMatchObject({ count: 4 })
    expect((await get('/activity/recent-count')).json()).toMatchObject({ count: 0 })
  })

  it('types: the activity types that occur', async () => {
    expect((await get('/activity/types')).json()).toEqual({ data: ['email.sent', 'event.triggered'] })
  })

  it("another project's key counts none of it", async () => {
    const other = await createAccount(server)
    const call = (url: string) => callAs(server, other)('GET', url)
    expect((await call(`/activity/stats?startDate=${ago(185)}`)).json()).toMatchObject({ totalEvents: 0, byType: [] })
    expect((await call(`/activity/recent-count?since=${ago(200)}`)).json()).toMatchObject({ count: 0 })
    expect((await call('/activity/types')).json()).toEqual({ data: [] })
  })
})

describe('GET /activity/upcoming', () => {
  it('lists emails waiting for a later attempt, soonest first; other projects see none', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account, { email: uniqueEmail('later') })
    const [later, sooner] = await server.ctx.db.transaction(async (tx) => {
      const ids = await enqueueEmails(tx, account.project.id, [
        testEmail({ subject: 'Later', contactId: contact.id }),
        testEmail({ subject: 'Sooner', contactId: contact.id }),
      ])
      // As a temporary failure leaves them: queued, with the next attempt in the future.
      await tx.execute(sql`
        UPDATE emails SET attempts = 1,
          next_attempt_at = now() + CASE subject WHEN 'Later' THEN interval '2 hours' ELSE interval '1 hour' END
        WHERE id = ANY(${sql.param(ids)}::uuid[])`)
      return ids
    })
    const response = await callAs(server, account)('GET', '/activity/upcoming')
    expect(response.statusCode).toBe(200)
    expect(response.json().data).toEqual([
      {
        id: sooner,
        type: 'email.scheduled',
        timestamp: expect.any(String),
        contact: { id: contact.id, email: contact.email },
        data: expect.objectContaining({ emailId: sooner, subject: 'Sooner', attempts: 1, campaignId: null }),
      },
      expect.objectContaining({ id: later }),
    ])
    const other = await createAccount(server)
    expect((await callAs(server, other)('GET', '/activity/upcoming')).json()).toEqual({ data: [] })
  })

  it("lists scheduled campaigns, but not a campaign's emails paced for later", async () => {
    const account = await createAccount(server)
    const inOneHour = new Date(Date.now() + 3_600_000)
    const [scheduled] = await server.ctx.db
      .insert(campaigns)
      .values({
        projectId: account.project.id,
        name: 'Launch',
        subject: 'We launched',
        body: '<p>news</p>',
        from: 'news@example.com',
        audienceType: 'ALL',
        status: 'SCHEDULED',
        scheduledFor: inOneHour,
        totalRecipients: 42,
      })
      .returning()
    await server.ctx.db.transaction(async (tx) => {
      const [paced] = await enqueueEmails(tx, account.project.id, [
        testEmail({ sourceType: 'CAMPAIGN', campaignId: scheduled?.id }),
      ])
      await tx.execute(sql`UPDATE emails SET next_attempt_at = now() + interval '1 minute' WHERE id = ${paced}`)
    })
    const response = await callAs(server, account)('GET', '/activity/upcoming')
    expect(response.json().data).toEqual([
      {
        id: scheduled?.id,
        type: 'campaign.scheduled',
        timestamp: inOneHour.toISOString(),
        contact: null,
        data: { campaignId: scheduled?.id, name: 'Launch', subject: 'We launched', totalRecipients: 42 },
      },
    ])
    const other = await createAccount(server)
    expect((await callAs(server, other)('GET', '/activity/upcoming')).json()).toEqual({ data: [] })
  })
})

describe('rejects', () => {
  itRejectsBadQueries(
    () => server,
    [
      ['/activity?types=email.opened,bogus', 'types.1', 'invalid_enum_value'],
      ['/activity?contactId=42', 'contactId', 'invalid_string'],
      ['/activity?startDate=yesterday', 'startDate', 'invalid_string'],
      ['/activity?limit=0', 'limit', 'too_small'],
      ['/activity/stats?startDate=2026-01-02T00:00:00Z&endDate=2026-01-01T00:00:00Z', 'startDate', 'invalid_range'],
      ['/activity/recent-count?minutes=0', 'minutes', 'too_small'],
      ['/activity/recent-count?since=then', 'since', 'invalid_string'],
      ['/activity/upcoming?daysAhead=1000', 'daysAhead', 'too_big'],
    ],
  )

  it('a cursor that is not ours: 400', async () => {
    const account = await createAccount(server)
    const response = await callAs(server, account)('GET', '/activity?cursor=bm90LWEtY3Vyc29y')
    expect(response.statusCode).toBe(400)
    expect(response.json().error).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid cursor' })
  })

  itRequiresTheSecretKey(
    () => server,
    [
      ['GET', '/activity'],
      ['GET', '/activity/stats'],
      ['GET', '/activity/recent-count'],
      ['GET', '/activity/types'],
      ['GET', '/activity/upcoming'],
    ],
  )
})
