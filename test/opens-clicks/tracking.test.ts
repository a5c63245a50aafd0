import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { legacyClickUrl } from '../../src/mail/outbound/tracking-links.js'
import { signIds, signLinkToken } from '../../src/mail/signed-links.js'
import { verifyDkim } from '../helpers/dkim.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { enqueue, eventually, testEmail } from '../helpers/emails.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

let sink: SmtpSink
let env: ServerWithDns
let account: Account

const publicUrl = 'https://track.example.org'
const domain = 'news.example.com'
const from = `hello@${domain}`
const sale = 'https://shop.example.com/sale?a=1&b=2'
// Long enough to carry the open pixel: HTML over 3,200 characters.
const article = `<p>${'News of the week, long enough to read over coffee. '.repeat(64)}</p>`
const body = `<p>Hi</p><a href="https://shop.example.com/sale?a=1&amp;b=2">Sale</a>${article}
<a href="{{unsubscribeUrl}}">Unsubscribe</a> <a href="{{manageUrl}}">Preferences</a> <a href="mailto:help@example.com">Help</a>`

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url, publicUrl } })
  account = await createAccount(env.server, 'Acme')
  await addVerifiedDomain(env.server, env.dns, account, domain)
})
afterAll(async () => {
  await env.close()
  await sink.close()
})
beforeEach(() => sink.reset())

const inject = (method: 'GET' | 'HEAD', path: string) => env.server.app.inject({ method, url: path })

/** The sender address of a project: each test project verifies a domain of its own. */
const senders = new Map<string, string>()
const senderOf = (owner: Account) => senders.get(owner.project.id) ?? from

async function createTemplate(type: 'MARKETING' | 'TRANSACTIONAL', owner = account, html = body): Promise<string> {
  const response = await env.server.app.inject({
    method: 'POST',
    url: '/templates',
    headers: bearer(owner.secretKey),
    payload: { name: type, subject: `${type} mail`, body: html, from: senderOf(owner), type },
  })
  expect(response.statusCode).toBe(201)
  return response.json().id
}

/** Sends one email through /v1/send and returns its id and the message the SMTP server received. */
async function sendAndReceive(
  payload: object,
  owner = account,
): Promise<{ emailId: string; message: ReceivedMessage }> {
  const response = await env.server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(owner.secretKey),
    payload: { to: 'reader@example.net', subscribed: true, ...payload },
  })
  expect(response.statusCode).toBe(200)
  const [message] = await sink.waitForMessages(1)
  if (!message) throw new Error('no message')
  sink.reset()
  return { emailId: response.json().data.emails[0].email, message }
}

const sendMarketing = async (owner = account, html = body) =>
  sendAndReceive({ template: await createTemplate('MARKETING', owner, html) }, owner)

/** Paths (under PUBLIC_URL) of the tracking links in a received message. */
function trackingPaths(message: ReceivedMessage): { clicks: string[]; pixel: string | undefined } {
  const html = String(message.parsed.html)
  const paths = (kind: string) =>
    [...html.matchAll(new RegExp(`"${publicUrl}(/t/${kind}/[^"]+)"`, 'g'))].map((match) => match[1] ?? '')
  return { clicks: paths('click'), pixel: paths('open')[0] }
}

async function emailRow(emailId: string) {
  const { rows } = await env.server.ctx.pool.query(
    `SELECT project_id, status, opens, clicks, machine_opens, machine_clicks, opened_at, clicked_at, html, tracked
     FROM emails WHERE id = $1`,
    [emailId],
  )
  return rows[0]
}

/** As if the email had been handed over minutes ago: clicks within seconds of delivery are a scanner's. */
async function deliveredMinutesAgo(emailId: string) {
  // The sink has the message before the outbox records it (every 20 ms): backdate the recorded handover only.
  await vi.waitFor(async () => {
    const { rowCount } = await env.server.ctx.pool.query(
      "UPDATE emails SET sent_at = now() - interval '5 minutes' WHERE id = $1 AND sent_at IS NOT NULL",
      [emailId],
    )
    expect(rowCount).toBe(1)
  }, eventually)
}

async function engagementEvents(emailId: string, names = ['email.open', 'email.click']) {
  const { rows } = await env.server.ctx.pool.query(
    `SELECT name, project_id, data FROM events WHERE data->>'emailId' = $1 AND name = ANY($2)
     ORDER BY created_at, id`,
    [emailId, names],
  )
  return rows as { name: string; project_id: string; data: Record<string, unknown> }[]
}

/** Changes a character of the token's signature: its last bytes (the very last character carries no padding bits). */
function tamper(path: string): string {
  const at = path.length - 2
  const changed = path[at] === 'A' ? 'B' : 'A'
  return `${path.slice(0, at)}${changed}${path.slice(at + 1)}`
}

/** The token of a tracking path, decoded: 16 bytes of email id, then (clicks) 12 bytes of link id, then the signature. */
const tokenBytes = (path: string) => Buffer.from(path.slice(path.lastIndexOf('/') + 1), 'base64url')
const uuidBytes = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex')

async function setTracking(owner: Account, tracking: string) {
  const response = await env.server.app.inject({
    method: 'PATCH',
    url: `/users/@me/projects/${owner.project.id}`,
    headers: { cookie: owner.cookie },
    payload: { tracking },
  })
  expect(response.statusCode).toBe(200)
}

/** A project of its own, sending from a verified domain of its own. */
async function otherAccount(name: string): Promise<Account> {
  const other = await createAccount(env.server, name)
  const otherDomain = `${name.toLowerCase()}.example.com`
  await addVerifiedDomain(env.server, env.dns, other, otherDomain)
  senders.set(other.project.id, `hello@${otherDomain}`)
  return other
}

describe('marketing mail', () => {
  it('arrives with rewritten links in both parts and a pixel; subscription links and mailto are untouched; DKIM verifies', async () => {
    const { message } = await sendMarketing()
    const html = String(message.parsed.html)
    const { clicks, pixel } = trackingPaths(message)
    expect(clicks).toHaveLength(1)
    expect(clicks[0]).toMatch(/^\/t\/click\/[\w-]{48}$/)
    expect(pixel).toMatch(/^\/t\/open\/[\w-]{32}$/)
    expect(html).not.toContain('https://shop.example.com')
    expect(html).toMatch(new RegExp(`href="${publicUrl}/unsubscribe/[\\w-]+\\.[\\w-]+"`))
    expect(html).toMatch(new RegExp(`href="${publicUrl}/manage/[\\w-]+\\.[\\w-]+"`))
    expect(html).toContain('href="mailto:help@example.com"')
    // The text alternative carries the same click link, and the subscription links as they are.
    expect(message.parsed.text).toMatch(new RegExp(`Sale\\s+\\[${escapeRegExp(`${publicUrl}${clicks[0]}`)}\\]`))
    expect(message.parsed.text).not.toContain('shop.example.com')
    expect(message.parsed.text).not.toContain('/t/open/')
    expect(message.parsed.text).toMatch(new RegExp(`${publicUrl}/unsubscribe/[\\w-]+\\.[\\w-]+`))
    const head =
      message.raw
        .toString()
        .split('\r\n\r\n')[0]
        ?.replace(/\r\n[ \t]+/g, ' ') ?? ''
    expect(head).toMatch(new RegExp(`^List-Unsubscribe: <${publicUrl}/unsubscribe/[\\w-]+\\.[\\w-]+>$`, 'm'))
    expect(await verifyDkim(message.raw, env.dns)).toEqual([
      expect.objectContaining({ signingDomain: domain, status: expect.objectContaining({ result: 'pass' }) }),
    ])
  })

  it('is tracked when composed: the stored HTML keeps the original links', async () => {
    const { emailId } = await sendMarketing()
    const row = await emailRow(emailId)
    expect(row).toMatchObject({ tracked: true })
    expect(row?.html).toContain('href="https://shop.example.com/sale?a=1&amp;b=2"')
    expect(row?.html).not.toContain('/t/')
  })

  it('campaign and workflow mail is marketing unless said otherwise', async () => {
    const email = (sourceType: 'CAMPAIGN' | 'WORKFLOW' | 'TRANSACTIONAL', marketing?: boolean) =>
      testEmail({ from: { email: from }, html: body, sourceType, ...(marketing === undefined ? {} : { marketing }) })
    const ids = await enqueue(env.server, account.project.id, [
      email('CAMPAIGN'),
      email('WORKFLOW'),
      email('TRANSACTIONAL'),
      email('TRANSACTIONAL', true),
      email('CAMPAIGN', false),
    ])
    const tracked = await Promise.all(ids.map(async (id) => (await emailRow(id))?.tracked))
    expect(tracked).toEqual([true, true, false, true, false])
    const messages = await sink.waitForMessages(5)
    const pixels = messages.filter((message) => trackingPaths(message).pixel !== undefined)
    expect(pixels).toHaveLength(3)
  })

  it('each pixel load counts an open: email.open with running totals, status OPENED; HEAD counts as a machine', async () => {
    const { emailId, message } = await sendMarketing()
    const pixel = trackingPaths(message).pixel ?? ''
    for (let load = 0; load < 2; load++) {
      const response = await inject('GET', pixel)
      expect(response.statusCode).toBe(200)
      expect(response.headers['content-type']).toBe('image/gif')
      expect(response.headers['cache-control']).toContain('no-store')
      expect(response.rawPayload.subarray(0, 6).toString()).toBe('GIF89a')
    }
    expect((await inject('HEAD', pixel)).statusCode).toBe(200)

    const events = await engagementEvents(emailId)
    expect(events.map((event) => [event.name, event.data.opens, event.data.isFirstOpen])).toEqual([
      ['email.open', 1, true],
      ['email.open', 2, false],
    ])
    expect(events[0]?.data.openedAt).toBe(events[1]?.data.openedAt)
    expect(events.every((event) => event.project_id === account.project.id)).toBe(true)
    expect(await emailRow(emailId)).toMatchObject({ status: 'OPENED', opens: 2, machine_opens: 1 })
  })

  it('a click redirects (302) to the original link and emits email.click with it; status CLICKED', async () => {
    const { emailId, message } = await sendMarketing()
    await deliveredMinutesAgo(emailId)
    const [click = ''] = trackingPaths(message).clicks
    const first = await inject('GET', click)
    expect(first.statusCode).toBe(302)
    expect(first.headers.location).toBe(sale)
    expect(first.headers['cache-control']).toContain('no-store')
    expect((await inject('HEAD', click)).headers.location).toBe(sale)
    expect((await inject('GET', click)).statusCode).toBe(302)

    const events = await engagementEvents(emailId)
    expect(events.map((event) => [event.name, event.data.link, event.data.clicks, event.data.isFirstClick])).toEqual([
      ['email.click', sale, 1, true],
      ['email.click', sale, 2, false],
    ])
    // The HEAD request between them is a link checker's.
    expect(await emailRow(emailId)).toMatchObject({ status: 'CLICKED', clicks: 2, opens: 0, machine_clicks: 1 })
  })
})

describe('links in hand-written marketing HTML', () => {
  it('tracks links however written, never the ones in comments, and redirects to the decoded URL', async () => {
    const html = `<p>Hi</p><a title=">" href="https://shop.example.com/find?q=&lt;x&gt;&amp;lang=&#x65E5;">Find</a>
<a href=https://shop.example.com/unquoted>Unquoted</a> <A HREF='https://shop.example.com/single'>Single</A>
<!-- <a href="https://shop.example.com/old">old</a> --><!--[if mso]><a href="https://shop.example.com/mso">mso</a><![endif]-->`
    const template = await env.server.app.inject({
      method: 'POST',
      url: '/templates',
      headers: bearer(account.secretKey),
      payload: { name: 'Hand-written', subject: 'Sale', body: html, from, type: 'MARKETING' },
    })
    expect(template.statusCode).toBe(201)
    const { emailId, message } = await sendAndReceive({ template: template.json().id })
    await deliveredMinutesAgo(emailId)
    const { clicks } = trackingPaths(message)
    expect(clicks).toHaveLength(3)
    const received = String(message.parsed.html)
    expect(received).toContain('<!-- <a href="https://shop.example.com/old">old</a> -->')
    expect(received).toContain('<!--[if mso]><a href="https://shop.example.com/mso">mso</a><![endif]-->')
    expect(received).not.toMatch(/unquoted|single|&lt;x/)

    const locations = []
    for (const click of clicks) locations.push((await inject('GET', click)).headers.location)
    expect(locations).toEqual([
      'https://shop.example.com/find?q=%3Cx%3E&lang=%E6%97%A5',
      'https://shop.example.com/unquoted',
      'https://shop.example.com/single',
    ])
    // Three links clicked within a second: the last two are a burst, recorded as a machine's.
    const events = await engagementEvents(emailId, ['email.click', 'email.machine_click'])
    expect(events.map((event) => event.name)).toEqual(['email.click', 'email.machine_click', 'email.machine_click'])
    expect(events.map((event) => event.data.link)).toEqual([
      'https://shop.example.com/find?q=<x>&lang=日',
      'https://shop.example.com/unquoted',
      'https://shop.example.com/single',
    ])
  })
})

describe('forged and tampered tokens', () => {
  it('is rate limited per tracking URL, 120 a minute whatever the query string; other emails are unaffected', async () => {
    const limitedEmail = await sendMarketing()
    const other = await sendMarketing()
    const pixel = trackingPaths(limitedEmail.message).pixel ?? ''
    const statuses = new Set<number>()
    for (let load = 0; load < 120; load++) statuses.add((await inject('GET', `${pixel}?n=${load}`)).statusCode)
    expect([...statuses]).toEqual([200])

    const limited = await inject('GET', `${pixel}?n=more`)
    expect(limited.statusCode).toBe(429)
    expect(limited.json().error.code).toBe('RATE_LIMIT_EXCEEDED')
    expect((await emailRow(limitedEmail.emailId)).opens).toBe(120)

    expect((await inject('GET', trackingPaths(other.message).pixel ?? '')).statusCode).toBe(200)
    expect((await emailRow(other.emailId)).opens).toBe(1)
  })

  it('a tampered pixel token still gets the pixel but records nothing', async () => {
    const { emailId, message } = await sendMarketing()
    for (const path of [tamper(trackingPaths(message).pixel ?? ''), '/t/open/', '/t/open/garbage', '/t/open/a.b.c']) {
      const response = await inject('GET', path)
      expect(response.statusCode).toBe(200)
      expect(response.headers['content-type']).toBe('image/gif')
    }
    expect(await engagementEvents(emailId)).toEqual([])
    expect(await emailRow(emailId)).toMatchObject({ status: expect.stringMatching(/^SEN/), opens: 0, opened_at: null })
  })

  it('a tampered click token shows the friendly page, redirects nowhere and records nothing', async () => {
    const { emailId, message } = await sendMarketing()
    const [click = ''] = trackingPaths(message).clicks
    const openToken = (trackingPaths(message).pixel ?? '').replace('/t/open/', '')
    for (const path of [tamper(click), '/t/click/garbage', `/t/click/${openToken}`]) {
      const response = await inject('GET', path)
      expect(response.statusCode).toBe(404)
      expect(response.headers['content-type']).toContain('text/html')
      expect(response.headers.location).toBeUndefined()
      expect(response.body).toContain('This link is not valid')
    }
    expect(await engagementEvents(emailId)).toEqual([])
    expect(await emailRow(emailId)).toMatchObject({
      status: expect.stringMatching(/^SEN/),
      clicks: 0,
      clicked_at: null,
    })
  })

  it('editing the link inside a click token of the former format to another URL does not redirect there', async () => {
    const { emailId } = await sendMarketing()
    const click = new URL(legacyClickUrl(publicUrl, env.server.config.secret, emailId, sale)).pathname
    const [payload, mac] = click.replace('/t/click/', '').split('.')
    const [id] = Buffer.from(payload ?? '', 'base64url')
      .toString()
      .split('\n')
    const forged = Buffer.from(`${id}\nhttps://evil.example.net/phish`).toString('base64url')
    const response = await inject('GET', `/t/click/${forged}.${mac}`)
    expect(response.statusCode).toBe(404)
    expect(response.headers.location).toBeUndefined()
    expect(await engagementEvents(emailId)).toEqual([])
  })

  it('only http(s) targets redirect, even with a genuine signature', async () => {
    const { emailId } = await sendMarketing()
    const token = signLinkToken(env.server.config.secret, 'click', [emailId, 'javascript:alert(1)'])
    const response = await inject('GET', `/t/click/${token}`)
    expect(response.statusCode).toBe(404)
    expect(response.headers.location).toBeUndefined()
    expect(await engagementEvents(emailId)).toEqual([])
  })
})

describe('tracking settings', () => {
  function expectUntracked(message: ReceivedMessage) {
    expect(trackingPaths(message)).toEqual({ clicks: [], pixel: undefined })
    expect(String(message.parsed.html)).toContain('href="https://shop.example.com/sale?a=1&amp;b=2"')
  }

  it('transactional mail carries no pixel and its original links by default', async () => {
    expect(account.project.tracking).toBe('MARKETING_ONLY')
    expectUntracked((await sendAndReceive({ subject: 'Receipt', body, from })).message)
    expectUntracked((await sendAndReceive({ template: await createTemplate('TRANSACTIONAL') })).message)
  })

  it('a project with tracking DISABLED gets none, even on marketing mail; ENABLED tracks transactional mail too', async () => {
    const other = await otherAccount('Quiet')
    await setTracking(other, 'DISABLED')
    expectUntracked((await sendMarketing(other)).message)

    await setTracking(other, 'ENABLED')
    const { emailId, message } = await sendAndReceive({ subject: 'Receipt', body, from: senderOf(other) }, other)
    const { pixel } = trackingPaths(message)
    expect(pixel).toBeDefined()
    expect((await inject('GET', pixel ?? '')).statusCode).toBe(200)
    // Tracking tokens are global; the event lands on the email's own project.
    const events = await engagementEvents(emailId)
    expect(events.map((event) => event.project_id)).toEqual([other.project.id])
    const seen = await env.server.app.inject({ method: 'GET', url: '/events', headers: bearer(account.secretKey) })
    expect(seen.body).not.toContain(emailId)
  })
})

describe('short click links (issue #33)', () => {
  it('keep a tracked email within a few hundred bytes of the same email untracked, as received', async () => {
    const newsletter = `<html><body><h1>Spring</h1><p><a href="https://shop.example.com/lists/spring">Read the list</a></p>
${article}<p><a href="https://shop.example.com/events/reading">Book a seat</a></p>
<p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p></body></html>`
    const template = await createTemplate('MARKETING', account, newsletter)
    await setTracking(account, 'DISABLED')
    const untracked = await sendAndReceive({ template })
    await setTracking(account, 'MARKETING_ONLY')
    const tracked = await sendAndReceive({ template })

    const { clicks, pixel } = trackingPaths(tracked.message)
    expect(clicks).toHaveLength(2)
    expect(pixel).toBeDefined()
    expect(trackingPaths(untracked.message)).toEqual({ clicks: [], pixel: undefined })
    const bytes = (message: ReceivedMessage) => Buffer.byteLength(String(message.parsed.html))
    const growth = bytes(tracked.message) - bytes(untracked.message)
    // Two links of ~40 characters become ~80 each, and the pixel in its link adds ~240: about 320 bytes.
    expect(growth).toBeGreaterThan(0)
    expect(growth).toBeLessThanOrEqual(400)
    // Neither destination can be read from the email's HTML.
    expect(String(tracked.message.parsed.html)).not.toContain('shop.example.com')
  })

  it('redirect with one lookup of the stored link and record the click; a project stores each link once', async () => {
    const first = await sendMarketing()
    const second = await sendMarketing()
    const { rows } = await env.server.ctx.pool.query(
      "SELECT url FROM tracked_links WHERE project_id = $1 AND url LIKE 'https://shop.example.com/sale%'",
      [account.project.id],
    )
    expect(rows).toEqual([{ url: sale }])
    const [click = ''] = trackingPaths(second.message).clicks
    expect(click).not.toBe(trackingPaths(first.message).clicks[0])
    await deliveredMinutesAgo(second.emailId)

    const query = vi.spyOn(env.server.ctx.pool, 'query')
    const response = await inject('GET', click)
    const lookups = query.mock.calls.filter(([text]) => JSON.stringify(text).includes('tracked_links'))
    query.mockRestore()
    expect(response.statusCode).toBe(302)
    expect(response.headers.location).toBe(sale)
    expect(lookups).toHaveLength(1)
    const events = await engagementEvents(second.emailId)
    expect(events.map((event) => [event.name, event.data.link, event.data.isFirstClick])).toEqual([
      ['email.click', sale, true],
    ])
    expect(await emailRow(second.emailId)).toMatchObject({ status: 'CLICKED', clicks: 1 })
    expect(await emailRow(first.emailId)).toMatchObject({ clicks: 0 })

    // The lookup is by primary key.
    const plan = await env.server.ctx.pool.query('EXPLAIN SELECT url, project_id FROM tracked_links WHERE id = $1', [
      tokenBytes(click).subarray(16, 28),
    ])
    expect(JSON.stringify(plan.rows)).toContain('Index Scan using tracked_links_pkey')
  })

  it('a tampered signature is refused: the friendly page, no redirect, nothing recorded', async () => {
    const { emailId, message } = await sendMarketing()
    await deliveredMinutesAgo(emailId)
    const [click = ''] = trackingPaths(message).clicks
    const token = click.replace('/t/click/', '')
    const ids = tokenBytes(click).subarray(0, 28)
    const wrongKey = signIds(`${env.server.config.secret}x`, 'click-id', ids)
    const openKey = signIds(env.server.config.secret, 'open-id', ids)
    for (const forged of [tamper(token), wrongKey, openKey, `${token}A`, token.slice(0, -1)]) {
      const response = await inject('GET', `/t/click/${forged}`)
      expect(response.statusCode, forged).toBe(404)
      expect(response.headers.location).toBeUndefined()
    }
    expect(await engagementEvents(emailId, ['email.click', 'email.machine_click'])).toEqual([])
  })

  it('a link of the former format, already delivered, still redirects and records the click', async () => {
    const { emailId } = await sendMarketing()
    await deliveredMinutesAgo(emailId)
    const legacy = new URL(legacyClickUrl(publicUrl, env.server.config.secret, emailId, sale)).pathname
    expect(legacy.length).toBeGreaterThan(100)
    const response = await inject('GET', legacy)
    expect(response.statusCode).toBe(302)
    expect(response.headers.location).toBe(sale)
    const pixel = `/t/open/${signLinkToken(env.server.config.secret, 'open', [emailId])}`
    expect((await inject('GET', pixel)).statusCode).toBe(200)
    const events = await engagementEvents(emailId, ['email.click', 'email.open', 'email.machine_open'])
    expect(events.map((event) => [event.name, event.data.link ?? null])).toEqual([
      ['email.click', sale],
      // A second after the click: the opens of a person reading.
      [expect.stringMatching(/^email\.(machine_)?open$/), null],
    ])
    expect(await emailRow(emailId)).toMatchObject({ clicks: 1 })
  })

  it("another project's link id cannot be used with this project's email, even signed with the server's key", async () => {
    const other = await otherAccount('Elsewhere')
    const theirs = await sendMarketing(other, body.replace('/sale?', '/theirs?'))
    const ours = await sendMarketing()
    await deliveredMinutesAgo(ours.emailId)
    const theirLink = tokenBytes(trackingPaths(theirs.message).clicks[0] ?? '').subarray(16, 28)
    const mixed = signIds(env.server.config.secret, 'click-id', Buffer.concat([uuidBytes(ours.emailId), theirLink]))
    const response = await inject('GET', `/t/click/${mixed}`)
    expect(response.statusCode).toBe(404)
    expect(response.headers.location).toBeUndefined()
    expect(response.body).toContain('This link is not valid')
    for (const emailId of [ours.emailId, theirs.emailId]) {
      expect(await engagementEvents(emailId, ['email.click', 'email.machine_click'])).toEqual([])
      expect(await emailRow(emailId)).toMatchObject({ clicks: 0, machine_clicks: 0 })
    }
  })

  it('a short email gets its links tracked but no open pixel, which would make it look image-only', async () => {
    const short = '<p>Welcome!</p><p><a href="https://shop.example.com/account">Your account</a></p>'
    const { message } = await sendMarketing(account, short)
    const { clicks, pixel } = trackingPaths(message)
    expect(clicks).toHaveLength(1)
    expect(pixel).toBeUndefined()
    expect(String(message.parsed.html)).not.toContain('<img')
  })
})

/** The text part wraps a long link onto its own line: the link's words and its target, any white space between. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
