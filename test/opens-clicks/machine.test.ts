import { type IncomingHttpHeaders, request } from 'node:http'
import { simpleParser } from 'mailparser'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { addDomain } from '../helpers/domains.js'
import { eventually, findEmails } from '../helpers/emails.js'
import { waitForDispatch } from '../helpers/events.js'
import { type Account, bearer, callAs, createAccount, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import {
  humanClicks,
  humanOpens,
  machineClicksOnDelivery,
  machineOpensOnDelivery,
  type RequestPattern,
} from './request-patterns.js'

const publicUrl = 'https://track.example.org'
const domain = 'machines.example.com'
const links = ['https://shop.example.com/a', 'https://shop.example.com/b', 'https://shop.example.com/c']
// Long enough to carry the open pixel (HTML over 3,200 characters).
const body = `<p>${'Hi. '.repeat(820)}</p>${links.map((link, index) => `<a href="${link}">Link ${index}</a>`).join(' ')}`

let server: TestServer

// The server sits behind a reverse proxy on loopback, as in production: the client address comes from
// X-Forwarded-For (TRUST_PROXY).
beforeAll(async () => {
  server = await startTestServer({ config: { mailTransport: 'capture', publicUrl, trustProxy: ['127.0.0.1'] } })
})
afterAll(() => server.close())

async function trackedAccount(): Promise<Account> {
  const account = await createAccount(server)
  await addDomain(server, account, domain)
  const response = await server.app.inject({
    method: 'PATCH',
    url: `/users/@me/projects/${account.project.id}`,
    headers: { cookie: account.cookie },
    payload: { tracking: 'ENABLED' },
  })
  expect(response.statusCode).toBe(200)
  return account
}

type Tracked = { emailId: string; pixel: string; clicks: string[] }

/** Sends one tracked email and reads its pixel and click paths from the message the transport took. */
async function sendTracked(account: Account): Promise<Tracked> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(account.secretKey),
    payload: { to: uniqueEmail('reader'), subject: 'Hello', body, from: `hello@${domain}` },
  })
  expect(response.statusCode).toBe(200)
  const emailId: string = response.json().data.emails[0].email
  await vi.waitFor(async () => expect((await findEmails(server, [emailId]))[0]?.status).toBe('SENT'), eventually)
  const { rows } = await server.ctx.pool.query('SELECT raw FROM captured_messages WHERE email_id = $1', [emailId])
  const html = String((await simpleParser(rows[0].raw)).html)
  const paths = (kind: string) =>
    [...html.matchAll(new RegExp(`"${publicUrl}(/t/${kind}/[^"]+)"`, 'g'))].map((match) => match[1] ?? '')
  const [pixel = ''] = paths('open')
  return { emailId, pixel, clicks: paths('click') }
}

/**
 * One request over real HTTP (node:http sends no User-Agent unless given one, as some scanners do), through
 * the loopback "reverse proxy": the pattern's address in X-Forwarded-For.
 */
function hit(path: string, pattern: RequestPattern): Promise<{ statusCode: number; headers: IncomingHttpHeaders }> {
  const headers: Record<string, string> = { 'x-forwarded-for': pattern.ip }
  if (pattern.userAgent !== null) headers['user-agent'] = pattern.userAgent
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method: pattern.method, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** As if minutes had passed since delivery and since the last click: a person's pace, without waiting. */
async function minutesPass(emailId: string) {
  await server.ctx.pool.query(
    `UPDATE emails SET sent_at = sent_at - interval '5 minutes',
       last_clicked_at = last_clicked_at - interval '5 minutes' WHERE id = $1`,
    [emailId],
  )
}

async function emailRow(emailId: string) {
  const { rows } = await server.ctx.pool.query(
    `SELECT status, opens, clicks, machine_opens, machine_clicks, opened_at, clicked_at FROM emails WHERE id = $1`,
    [emailId],
  )
  return rows[0]
}

/** [name, machine flag, reason] of every open and click event of the email, in order. */
async function engagement(emailId: string) {
  const { rows } = await server.ctx.pool.query(
    `SELECT name, data FROM events WHERE data->>'emailId' = $1 AND name LIKE 'email.%' AND name NOT IN ('email.sent')
     ORDER BY created_at, id`,
    [emailId],
  )
  return rows.map((row: { name: string; data: Record<string, unknown> }) => [
    row.name,
    row.data.machine,
    row.data.reason ?? null,
  ])
}

const expectedEvents = (patterns: RequestPattern[], kind: 'open' | 'click') =>
  patterns.map((pattern) =>
    pattern.expected === null ? [`email.${kind}`, false, null] : [`email.machine_${kind}`, true, pattern.expected],
  )

describe('opens', () => {
  it('Apple MPP, proxy prefetches, gateways, HEAD and agentless loads are machine opens; the status waits for a person', async () => {
    const account = await trackedAccount()
    const email = await sendTracked(account)
    for (const pattern of machineOpensOnDelivery) {
      const response = await hit(email.pixel, pattern)
      expect(response.statusCode, pattern.name).toBe(200)
      expect(response.headers['content-type']).toBe('image/gif')
    }
    expect(await engagement(email.emailId)).toEqual(expectedEvents(machineOpensOnDelivery, 'open'))
    expect(await emailRow(email.emailId)).toMatchObject({
      status: 'SENT',
      opens: 0,
      opened_at: null,
      machine_opens: machineOpensOnDelivery.length,
    })

    await minutesPass(email.emailId)
    for (const pattern of humanOpens) expect((await hit(email.pixel, pattern)).statusCode, pattern.name).toBe(200)
    expect((await engagement(email.emailId)).slice(machineOpensOnDelivery.length)).toEqual(
      expectedEvents(humanOpens, 'open'),
    )
    expect(await emailRow(email.emailId)).toMatchObject({
      status: 'OPENED',
      opens: humanOpens.length,
      opened_at: expect.any(Date),
      machine_opens: machineOpensOnDelivery.length,
    })
  })

  it('X-Forwarded-For counts only from a trusted proxy: an Apple address claimed by anyone else is ignored', async () => {
    const account = await trackedAccount()
    const email = await sendTracked(account)
    const chrome = humanClicks[0]?.userAgent ?? ''
    const claimed = await server.app.inject({
      method: 'GET',
      url: email.pixel,
      remoteAddress: '198.51.100.7',
      headers: { 'x-forwarded-for': '17.58.63.52', 'user-agent': chrome },
    })
    expect(claimed.statusCode).toBe(200)
    expect(await engagement(email.emailId)).toEqual([['email.open', false, null]])
  })
})

describe('clicks', () => {
  it('delivery-time detonation, Office checks, HEAD and scripts are machine clicks; every one is redirected', async () => {
    const account = await trackedAccount()
    const email = await sendTracked(account)
    expect(email.clicks).toHaveLength(3)
    for (const [index, pattern] of machineClicksOnDelivery.entries()) {
      const response = await hit(email.clicks[index % 3] ?? '', pattern)
      expect(response.statusCode, pattern.name).toBe(302)
      expect(response.headers.location).toBe(links[index % 3])
    }
    expect(await engagement(email.emailId)).toEqual(expectedEvents(machineClicksOnDelivery, 'click'))
    expect(await emailRow(email.emailId)).toMatchObject({
      status: 'SENT',
      clicks: 0,
      clicked_at: null,
      machine_clicks: machineClicksOnDelivery.length,
    })

    for (const [index, pattern] of humanClicks.entries()) {
      await minutesPass(email.emailId)
      expect((await hit(email.clicks[index] ?? '', pattern)).headers.location).toBe(links[index])
    }
    expect((await engagement(email.emailId)).slice(machineClicksOnDelivery.length)).toEqual(
      expectedEvents(humanClicks, 'click'),
    )
    expect(await emailRow(email.emailId)).toMatchObject({ status: 'CLICKED', clicks: humanClicks.length })
  })

  it('a burst of different links in the same second is a scanner; the same link clicked twice is a person', async () => {
    const account = await trackedAccount()
    const email = await sendTracked(account)
    await minutesPass(email.emailId)
    const scanner: RequestPattern = { ...(humanClicks[0] as RequestPattern), ip: '40.94.29.20' }
    for (const path of email.clicks) expect((await hit(path, scanner)).statusCode).toBe(302)
    // The first link of a burst cannot be told from a person's click when it comes; the rest can.
    expect(await engagement(email.emailId)).toEqual([
      ['email.click', false, null],
      ['email.machine_click', true, 'click_burst'],
      ['email.machine_click', true, 'click_burst'],
    ])

    const other = await sendTracked(account)
    await minutesPass(other.emailId)
    const person = humanClicks[1] as RequestPattern
    for (let twice = 0; twice < 2; twice++) expect((await hit(other.clicks[0] ?? '', person)).statusCode).toBe(302)
    expect(await engagement(other.emailId)).toEqual([
      ['email.click', false, null],
      ['email.click', false, null],
    ])
  })
})

describe('stats and analytics', () => {
  it('count people in opened/clicked, opens/clicks and the rates, and machines beside them', async () => {
    const account = await trackedAccount()
    const [first, second] = [await sendTracked(account), await sendTracked(account)]
    if (!first || !second) throw new Error('not sent')
    // First email: Apple's prefetch, then its reader twice and a click a minute later, after a scanner's.
    await hit(first.pixel, machineOpensOnDelivery[0] as RequestPattern)
    await hit(first.clicks[0] ?? '', machineClicksOnDelivery[0] as RequestPattern)
    await minutesPass(first.emailId)
    await hit(first.pixel, humanOpens[0] as RequestPattern)
    await hit(first.pixel, humanOpens[1] as RequestPattern)
    await hit(first.clicks[1] ?? '', humanClicks[0] as RequestPattern)
    // Second email: only machines.
    for (const pattern of machineOpensOnDelivery.slice(0, 3)) await hit(second.pixel, pattern)
    await hit(second.clicks[2] ?? '', machineClicksOnDelivery[1] as RequestPattern)
    await waitForDispatch(server, account.project.id)

    const call = callAs(server, account)
    const timeseries = (await call('GET', '/analytics/timeseries')).json()
    expect(timeseries.totals).toEqual({
      sent: 2,
      // The capture transport kept both: nothing is delivered, and the dashboard says captured.
      captured: 2,
      delivered: 0,
      opened: 1,
      clicked: 1,
      bounced: 0,
      complained: 0,
      opens: 2,
      clicks: 1,
      machineOpens: 4,
      machineClicks: 2,
    })
    const stats = (await call('GET', '/activity/stats')).json()
    expect(stats).toMatchObject({
      totalEmailsSent: 2,
      totalEmailsOpened: 1,
      totalEmailsClicked: 1,
      totalMachineOpens: 4,
      totalMachineClicks: 2,
      openRate: 50,
      clickRate: 50,
    })
    const feed = (await call('GET', '/activity?types=email.machine_opened')).json()
    expect(feed.data.map((item: { data: { reason: string } }) => item.data.reason).sort()).toEqual([
      'apple_mpp',
      'apple_mpp',
      'apple_mpp',
      'apple_mpp',
    ])
  })
})
