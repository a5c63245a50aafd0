import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { campaigns } from '../../src/db/schema/index.js'
import { subscribeToEvents } from '../../src/events/bus.js'
import { addDomain } from '../helpers/domains.js'
import { enqueue, eventually, findEmails, testEmail } from '../helpers/emails.js'
import { itRejectsBadQueries } from '../helpers/errors.js'
import { emailEvent, publish, waitForDispatch } from '../helpers/events.js'
import { type Account, bearer, callAs, createAccount, uniqueEmail } from '../helpers/factories.js'
import { itRequiresTheSecretKey } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
const from = 'hello@analytics.example.com'
const hourMs = 3_600_000

beforeAll(async () => {
  server = await startTestServer({ config: { mailTransport: 'capture' } })
})
afterAll(async () => {
  await server.close()
})

type Sent = { contact: { id: string; email: string }; email: string }

/** Sends one email per recipient through /v1/send and waits until the worker has sent them all. */
async function sendTo(account: Account, recipients: string[]): Promise<Sent[]> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(account.secretKey),
    payload: { to: recipients, subject: 'Hello', body: '<p>Hello</p>', from },
  })
  expect(response.statusCode).toBe(200)
  const sent = response.json().data.emails as Sent[]
  await vi.waitFor(async () => {
    const rows = await findEmails(
      server,
      sent.map((item) => item.email),
    )
    expect(rows.map((row) => row.status)).toEqual(recipients.map(() => 'SENT'))
  }, eventually)
  return sent
}

/** Per-hour counts computed independently, straight from the event log. */
async function hourlyFromLog(projectId: string) {
  const result = await server.ctx.db.execute<{ hour: string; name: string; first: boolean | null }>(sql`
    SELECT date_trunc('hour', created_at, 'UTC') AS hour, name,
      coalesce((data->>'isFirstOpen')::boolean, (data->>'isFirstClick')::boolean) AS first
    FROM events WHERE project_id = ${projectId}`)
  return result.rows.map((row) => ({ hour: new Date(row.hour).getTime(), name: row.name, first: row.first }))
}

/** The hour of each message the capture transport kept for the project. */
async function capturedHours(projectId: string): Promise<number[]> {
  const result = await server.ctx.db.execute<{ hour: string }>(sql`
    SELECT date_trunc('hour', created_at, 'UTC') AS hour FROM captured_messages WHERE project_id = ${projectId}`)
  return result.rows.map((row) => new Date(row.hour).getTime())
}

describe('analytics count what was actually sent', () => {
  let account: Account
  let sent: Sent[]

  beforeAll(async () => {
    account = await createAccount(server)
    await addDomain(server, account, 'analytics.example.com')
    sent = await sendTo(account, [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')])
    const [a, b, c] = sent as [Sent, Sent, Sent]
    const event = (item: Sent, name: string, extra?: Record<string, unknown>) =>
      emailEvent(account.project.id, item.contact.id, item.email, name, extra)
    await publish(server, [
      event(a, 'email.delivery'),
      event(b, 'email.delivery'),
      event(a, 'email.open', { opens: 1, isFirstOpen: true }),
      event(a, 'email.open', { opens: 2, isFirstOpen: false }),
      event(b, 'email.open', { opens: 1, isFirstOpen: true }),
      event(a, 'email.click', { link: 'https://example.com/a', clicks: 1, isFirstClick: true }),
      event(a, 'email.click', { link: 'https://example.com/b', clicks: 2, isFirstClick: false }),
      // Machines' opens and clicks are their own metrics, never people's.
      event(c, 'email.machine_open', { machine: true, reason: 'apple_mpp', machineOpens: 1 }),
      event(c, 'email.machine_click', { link: 'https://example.com/a', machine: true, reason: 'scanner' }),
      event(c, 'email.machine_click', { link: 'https://example.com/b', machine: true, reason: 'click_burst' }),
      event(c, 'email.bounce', { bounceType: 'Permanent' }),
      event(b, 'email.complaint'),
    ])
    await waitForDispatch(server, account.project.id)
  })

  const call = (url: string) => callAs(server, account)('GET', url)

  it('hourly timeseries: zero-filled buckets that match the event log, totals with unique and total opens', async () => {
    const now = Date.now()
    const query = `from=${new Date(now - 3 * hourMs).toISOString()}&to=${new Date(now + hourMs).toISOString()}`
    const response = await call(`/analytics/timeseries?granularity=hour&${query}`)
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body.granularity).toBe('hour')
    // The capture transport kept the three emails: captured, which is not delivered (the two deliveries are events).
    expect(body.totals).toEqual({
      sent: 3,
      captured: 3,
      delivered: 2,
      opened: 2,
      clicked: 1,
      bounced: 1,
      complained: 1,
      opens: 3,
      clicks: 2,
      machineOpens: 1,
      machineClicks: 2,
    })
    const firstHour = Math.floor((now - 3 * hourMs) / hourMs) * hourMs
    expect(body.from).toBe(new Date(firstHour).toISOString())
    expect(body.data.map((point: { bucket: string }) => point.bucket)).toEqual(
      [0, 1, 2, 3, 4].map((index) => new Date(firstHour + index * hourMs).toISOString()),
    )
    const log = await hourlyFromLog(account.project.id)
    const captures = await capturedHours(account.project.id)
    for (const point of body.data) {
      const inBucket = log.filter((row) => row.hour === Date.parse(point.bucket))
      const named = (name: string) => inBucket.filter((row) => row.name === name)
      expect(point).toEqual({
        bucket: point.bucket,
        sent: named('email.sent').length,
        captured: captures.filter((hour) => hour === Date.parse(point.bucket)).length,
        delivered: named('email.delivery').length,
        opened: named('email.open').filter((row) => row.first).length,
        clicked: named('email.click').filter((row) => row.first).length,
        bounced: named('email.bounce').length,
        complained: named('email.complaint').length,
        opens: named('email.open').length,
        clicks: named('email.click').length,
        machineOpens: named('email.machine_open').length,
        machineClicks: named('email.machine_click').length,
      })
    }
  })

  it('daily timeseries: the range widened to whole UTC days, earlier days zero', async () => {
    const now = Date.now()
    const response = await call(`/analytics/timeseries?from=${new Date(now - 3 * 24 * hourMs).toISOString()}`)
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body.granularity).toBe('day')
    expect(body.data).toHaveLength(4)
    expect(body.data[0]).toMatchObject({ sent: 0, opened: 0 })
    expect(body.totals).toMatchObject({ sent: 3, delivered: 2, opened: 2, clicked: 1, bounced: 1, complained: 1 })
    expect(Date.parse(body.from) % (24 * hourMs)).toBe(0)
  })

  it('activity stats: counts per type and rates over the period', async () => {
    const response = await call('/activity/stats')
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toMatchObject({
      totalEmailsSent: 3,
      totalEmailsDelivered: 2,
      totalEmailsOpened: 2,
      totalEmailsClicked: 1,
      totalEmailsBounced: 1,
      totalEmailsComplained: 1,
      totalMachineOpens: 1,
      totalMachineClicks: 2,
      totalWorkflowsStarted: 0,
      openRate: 66.67,
      clickRate: 33.33,
    })
    const log = await hourlyFromLog(account.project.id)
    expect(body.totalEvents).toBe(log.length)
    expect(body.byType).toEqual(
      expect.arrayContaining([
        { type: 'email.sent', count: 3 },
        { type: 'email.opened', count: 3 },
        { type: 'email.clicked', count: 2 },
        { type: 'email.machine_opened', count: 1 },
        { type: 'email.machine_clicked', count: 2 },
      ]),
    )
  })

  it('the emails are not campaign emails: campaign analytics stay empty', async () => {
    expect((await call('/analytics/top-campaigns')).json()).toEqual({ metric: 'sent', data: [] })
    expect((await call('/analytics/campaign-stats')).json()).toMatchObject({ campaigns: 0, sent: 0, openRate: 0 })
  })

  it('another project sees none of it', async () => {
    const other = await createAccount(server)
    const get = (url: string) => callAs(server, other)('GET', url)
    expect((await get('/analytics/timeseries')).json().totals).toEqual({
      sent: 0,
      captured: 0,
      delivered: 0,
      opened: 0,
      clicked: 0,
      bounced: 0,
      complained: 0,
      opens: 0,
      clicks: 0,
      machineOpens: 0,
      machineClicks: 0,
    })
    expect((await get('/activity/stats')).json()).toMatchObject({ totalEvents: 0, totalEmailsSent: 0, byType: [] })
    expect((await get('/analytics/top-events')).json().events).toEqual([])
  })
})

describe('top events', () => {
  it('lists the most frequent custom events, leaving out internal ones, with the previous period', async () => {
    const account = await createAccount(server)
    const track = async (email: string, event: string) => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/v1/track',
        headers: bearer(account.publicKey),
        payload: { email, event },
      })
      expect(response.statusCode).toBe(200)
    }
    const ada = uniqueEmail('ada')
    for (const event of ['signup', 'purchase', 'signup', 'signup', 'viewed']) await track(ada, event)
    await track(uniqueEmail('bob'), 'purchase')
    await waitForDispatch(server, account.project.id)

    const response = await callAs(server, account)('GET', '/analytics/top-events?limit=2')
    expect(response.statusCode).toBe(200)
    expect(response.json().events).toEqual([
      { name: 'signup', count: 3, previousCount: 0 },
      { name: 'purchase', count: 2, previousCount: 0 },
    ])
    // Deleting an event name removes it from the analytics too.
    expect((await callAs(server, account)('DELETE', '/events/signup')).statusCode).toBe(200)
    const after = await callAs(server, account)('GET', '/analytics/top-events')
    expect(after.json().events.map((event: { name: string }) => event.name)).toEqual(['purchase', 'viewed'])
  })
})

describe('campaign analytics', () => {
  it('rank campaigns by a metric and total them, from the campaign id the email events carry', async () => {
    const account = await createAccount(server)
    // Campaign mail is rendered from its campaign when sent; a SENDING campaign that is not fully queued stays so.
    const [big, small] = await Promise.all(
      ['Big', 'Small'].map(async (name) => {
        const [row] = await server.ctx.db
          .insert(campaigns)
          .values({
            projectId: account.project.id,
            name,
            subject: name,
            body: '<p>news</p>',
            from: 'news@example.com',
            audienceType: 'ALL',
            status: 'SENDING',
          })
          .returning({ id: campaigns.id })
        return row?.id ?? ''
      }),
    )
    const contactId = await createContactId(account)
    const emails = [big, big, small].map((campaignId, index) =>
      testEmail({ campaignId, contactId, sourceType: 'CAMPAIGN', to: { email: `reader${index}@example.org` } }),
    )
    const ids = await enqueue(server, account.project.id, emails)
    await vi.waitFor(async () => {
      expect((await findEmails(server, ids)).map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT'])
    }, eventually)
    await publish(server, [
      emailEvent(account.project.id, contactId, ids[2] ?? '', 'email.open', { isFirstOpen: true }, small),
      emailEvent(account.project.id, contactId, ids[0] ?? '', 'email.bounce', { bounceType: 'Transient' }, big),
    ])
    await waitForDispatch(server, account.project.id)

    const get = (url: string) => callAs(server, account)('GET', url)
    const bySent = (await get('/analytics/top-campaigns')).json()
    expect(bySent.data.map((row: { campaignId: string; sent: number }) => [row.campaignId, row.sent])).toEqual([
      [big, 2],
      [small, 1],
    ])
    expect(bySent.data[0]).toMatchObject({ name: 'Big', captured: 2, delivered: 0, bounced: 1, bounceRate: 50 })
    expect(bySent.data[1]).toMatchObject({ name: 'Small', captured: 1 })
    const byOpenRate = (await get('/analytics/top-campaigns?metric=openRate&limit=1')).json()
    expect(byOpenRate).toMatchObject({ metric: 'openRate', data: [{ campaignId: small, opened: 1, openRate: 100 }] })

    expect((await get('/analytics/campaign-stats')).json()).toMatchObject({
      campaigns: 2,
      sent: 3,
      captured: 3,
      delivered: 0,
      opened: 1,
      bounced: 1,
      openRate: 33.33,
    })
    expect((await get(`/analytics/campaign-stats?campaignId=${small}`)).json()).toMatchObject({
      campaigns: 1,
      sent: 1,
      captured: 1,
      opened: 1,
    })
    // Another project's key asking for the same campaign id sees nothing.
    const other = await createAccount(server)
    expect((await callAs(server, other)('GET', `/analytics/campaign-stats?campaignId=${small}`)).json()).toMatchObject({
      campaigns: 0,
      sent: 0,
      captured: 0,
    })
    expect((await callAs(server, other)('GET', '/analytics/top-campaigns')).json().data).toEqual([])
  })
})

async function createContactId(account: Account): Promise<string> {
  const response = await callAs(server, account)('POST', '/contacts', {
    email: uniqueEmail('campaign'),
    subscribed: true,
  })
  expect(response.statusCode).toBe(201)
  return response.json().id
}

describe('rollup counting', () => {
  it('counts each event once when a batch is handed out again after another subscriber failed', async () => {
    const account = await createAccount(server)
    const contactId = await createContactId(account)
    await waitForDispatch(server, account.project.id)
    let failures = 0
    const unsubscribe = subscribeToEvents(async (events) => {
      if (events.some((event) => event.projectId === account.project.id) && failures++ === 0) {
        throw new Error('a later subscriber failed')
      }
    })
    try {
      await publish(
        server,
        [1, 2, 3].map(() => emailEvent(account.project.id, contactId, randomUUID(), 'email.sent')),
      )
      await waitForDispatch(server, account.project.id)
    } finally {
      unsubscribe()
    }
    expect(failures).toBeGreaterThan(1)
    const stats = (await callAs(server, account)('GET', '/activity/stats')).json()
    expect(stats.totalEmailsSent).toBe(3)
  })
})

describe('rejects', () => {
  itRejectsBadQueries(
    () => server,
    [
      ['/analytics/timeseries?from=yesterday', 'from', 'invalid_string'],
      ['/analytics/timeseries?granularity=week', 'granularity', 'invalid_enum_value'],
      ['/analytics/timeseries?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'from', 'invalid_range'],
      ['/analytics/timeseries?granularity=hour&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z', 'from', 'too_big'],
      ['/analytics/top-campaigns?metric=revenue', 'metric', 'invalid_enum_value'],
      ['/analytics/top-campaigns?limit=0', 'limit', 'too_small'],
      ['/analytics/campaign-stats?campaignId=42', 'campaignId', 'invalid_string'],
      ['/analytics/top-events?to=soon', 'to', 'invalid_string'],
    ],
  )

  itRequiresTheSecretKey(
    () => server,
    [
      ['GET', '/analytics/timeseries'],
      ['GET', '/analytics/top-campaigns'],
      ['GET', '/analytics/campaign-stats'],
      ['GET', '/analytics/top-events'],
    ],
  )
})
