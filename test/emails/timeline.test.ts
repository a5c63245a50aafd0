import { inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { emails } from '../../src/db/schema/index.js'
import { createSubmissionHandler } from '../../src/modules/relay/handler.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { badPathBody } from '../helpers/errors.js'
import { type Account, bearer, createAccount, uniqueEmail } from '../helpers/factories.js'
import { notFoundBody } from '../helpers/scoping.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { composeRaw, submission } from '../relay/helpers.js'

const publicUrl = 'https://track.example.org'
const domain = 'timeline.example.com'
const from = `hello@${domain}`
const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'

let sink: SmtpSink
let env: ServerWithDns
let account: Account
/** How many times the sink saw each recipient at RCPT TO. */
const tries = new Map<string, number>()

beforeAll(async () => {
  sink = await startSmtpSink({
    failWith: (rcpt) => {
      const seen = (tries.get(rcpt) ?? 0) + 1
      tries.set(rcpt, seen)
      // Greylisted once, then accepted; or greylisted once, then refused for good.
      if (rcpt.startsWith('later') && seen === 1) return { code: 451, message: 'Greylisted, try again' }
      if (rcpt.startsWith('gone')) {
        return seen === 1 ? { code: 451, message: 'Busy, try again' } : { code: 550, message: 'No such user here' }
      }
      return undefined
    },
  })
  env = await startServerWithDns({ config: { smtpUrl: sink.url, publicUrl } })
  account = await createAccount(env.server)
  await addVerifiedDomain(env.server, env.dns, account, domain)
})
afterAll(async () => {
  await env.close()
  await sink.close()
})

const resetBody = '<p>Reset <a href="https://app.example.com/reset">here</a></p>'

async function send(to: string, key = account.secretKey, body = resetBody): Promise<string> {
  const response = await env.server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(key),
    payload: {
      to,
      subject: 'Your reset link',
      body,
      from,
    },
  })
  expect(response.statusCode).toBe(200)
  return response.json().data.emails[0].email
}

async function timeline(id: string, key = account.secretKey) {
  const response = await env.server.app.inject({ method: 'GET', url: `/emails/${id}`, headers: bearer(key) })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

type Entry = { kind: string; at: string; detail: Record<string, unknown> }
const kinds = (body: { history: Entry[] }) => body.history.map((entry) => entry.kind)
const entry = (body: { history: Entry[] }, kind: string, nth = 0) =>
  body.history.filter((item) => item.kind === kind)[nth]

async function waitForStatus(id: string, status: string) {
  await vi.waitFor(async () => expect((await timeline(id)).status).toBe(status), eventually)
}

/** Makes a deferred email due now instead of after its backoff, and nudges the outbox. */
async function retryNow(id: string) {
  await env.server.ctx.db
    .update(emails)
    .set({ nextAttemptAt: sql`now()` })
    .where(inArray(emails.id, [id]))
  env.server.outbox?.wake()
}

describe('GET /emails/:id', () => {
  it('tells a /v1/send email handed to the SMTP server: accepted, then sent with the server reply', async () => {
    const to = uniqueEmail('ada')
    const id = await send(to)
    await sink.waitForMessages(1)
    await waitForStatus(id, 'SENT')

    const body = await timeline(id)
    expect(body).toMatchObject({
      id,
      status: 'SENT',
      sourceType: 'TRANSACTIONAL',
      relayed: false,
      from: { email: from },
      to: { email: to, name: null },
      subject: 'Your reset link',
      contactId: expect.any(String),
      campaignId: null,
      workflowId: null,
      sizeBytes: null,
      attempts: 1,
      lastError: null,
    })
    expect(kinds(body)).toEqual(['accepted', 'sent'])
    expect(entry(body, 'accepted')?.at).toBe(body.createdAt)
    expect(entry(body, 'sent')).toEqual({
      at: body.sentAt,
      kind: 'sent',
      detail: {
        attempt: 1,
        claimedAt: expect.any(String),
        providerMessageId: body.messageId,
        response: expect.stringMatching(/^250 /),
      },
    })
  })

  it('tells an email deferred once (451) and then delivered: the refusal, its next attempt, then the handover', async () => {
    const id = await send(uniqueEmail('later'))
    await vi.waitFor(async () => expect(kinds(await timeline(id))).toEqual(['accepted', 'deferred']), eventually)
    const waiting = await timeline(id)
    const deferred = entry(waiting, 'deferred')
    expect(deferred?.detail).toEqual({
      attempt: 1,
      claimedAt: expect.any(String),
      code: '451',
      error: expect.stringMatching(/Greylisted, try again/),
      nextAttemptAt: expect.any(String),
    })
    // The next attempt waits the backoff (about 30 s), as the email itself says.
    expect(Date.parse(String(deferred?.detail.nextAttemptAt))).toBe(Date.parse(waiting.nextAttemptAt))
    expect(Date.parse(waiting.nextAttemptAt) - Date.parse(deferred?.at ?? '')).toBeGreaterThan(20_000)

    await retryNow(id)
    await waitForStatus(id, 'SENT')
    const body = await timeline(id)
    expect(kinds(body)).toEqual(['accepted', 'deferred', 'sent'])
    expect(entry(body, 'sent')?.detail).toMatchObject({ attempt: 2, response: expect.stringMatching(/^250 /) })
    expect(body.nextAttemptAt).toBeNull()
  })

  it('tells an email bounced (550) after a retry: the deferral, the refusal, and the bounce with the reply as evidence', async () => {
    const id = await send(uniqueEmail('gone'))
    await vi.waitFor(async () => expect(kinds(await timeline(id))).toEqual(['accepted', 'deferred']), eventually)
    await retryNow(id)
    await waitForStatus(id, 'BOUNCED')

    const body = await timeline(id)
    expect(kinds(body)).toEqual(['accepted', 'deferred', 'failed', 'bounced'])
    expect(entry(body, 'deferred')?.detail).toMatchObject({
      attempt: 1,
      code: '451',
      error: expect.stringMatching(/Busy/),
    })
    expect(entry(body, 'failed')?.detail).toEqual({
      attempt: 2,
      claimedAt: expect.any(String),
      code: '550',
      error: expect.stringMatching(/No such user here/),
      bounce: true,
    })
    expect(entry(body, 'bounced')?.detail).toEqual({
      bounceType: 'Permanent',
      source: 'smtp',
      code: '550',
      response: expect.stringMatching(/No such user here/),
    })
    expect(body).toMatchObject({ attempts: 2, bouncedAt: expect.any(String), failedAt: expect.any(String) })
  })

  it('marks each open and click as a person’s or a machine’s, with the reason', async () => {
    const tracked = await env.server.app.inject({
      method: 'PATCH',
      url: `/users/@me/projects/${account.project.id}`,
      headers: { cookie: account.cookie },
      payload: { tracking: 'ENABLED' },
    })
    expect(tracked.statusCode).toBe(200)
    sink.reset()
    const to = uniqueEmail('reader')
    // Long enough to carry the open pixel (HTML over 3,200 characters).
    const id = await send(to, account.secretKey, `${resetBody}<p>${'Words of help. '.repeat(220)}</p>`)
    const [message] = await sink.waitForMessages(1)
    await waitForStatus(id, 'SENT')
    const html = String(message?.parsed.html)
    const path = (kind: string) => new RegExp(`"${publicUrl}(/t/${kind}/[^"]+)"`).exec(html)?.[1] ?? ''
    const hit = (url: string, headers: Record<string, string>, method: 'GET' | 'HEAD' = 'GET') =>
      env.server.app.inject({ method, url, headers })

    await hit(path('open'), { 'user-agent': browser }, 'HEAD')
    await hit(path('open'), { 'user-agent': browser })
    // A click seconds after the handover is a scanner's; a person clicks later.
    await hit(path('click'), { 'user-agent': browser })
    await env.server.ctx.db
      .update(emails)
      .set({ sentAt: sql`now() - interval '1 minute'` })
      .where(inArray(emails.id, [id]))
    await hit(path('click'), { 'user-agent': browser })

    const body = await timeline(id)
    expect(kinds(body)).toEqual(['accepted', 'sent', 'opened', 'opened', 'clicked', 'clicked'])
    expect(body.history.slice(2).map((item: Entry) => item.detail)).toEqual([
      { machine: true, reason: 'head_request', source: 'tracking', userAgent: browser },
      { machine: false, source: 'tracking', userAgent: browser },
      {
        link: 'https://app.example.com/reset',
        machine: true,
        reason: 'clicked_on_delivery',
        source: 'tracking',
        userAgent: browser,
      },
      { link: 'https://app.example.com/reset', machine: false, source: 'tracking', userAgent: browser },
    ])
    expect(body).toMatchObject({ status: 'CLICKED', opens: 1, machineOpens: 1, clicks: 1, machineClicks: 1 })
  })

  it('tells a message relayed over SMTP submission, marked relayed, with its size', async () => {
    const raw = await composeRaw({ from: from, to: 'relayed@example.net', subject: 'Relayed', text: 'Hello' })
    const handler = createSubmissionHandler(env.server.ctx)
    const { emailIds } = await handler.accept(
      submission(account.project.id, raw, { from, to: ['relayed@example.net'] }),
    )
    const [id = ''] = emailIds
    await waitForStatus(id, 'SENT')

    const body = await timeline(id)
    expect(body).toMatchObject({
      relayed: true,
      subject: 'Relayed',
      sizeBytes: raw.length,
      to: { email: 'relayed@example.net' },
    })
    expect(kinds(body)).toEqual(['accepted', 'sent'])
    expect(entry(body, 'accepted')?.detail).toMatchObject({ relayed: true })
  })

  it('tells an unsubscribe through the link of a /v1/send email, which names that email', async () => {
    const to = uniqueEmail('leaver')
    // A subscriber: /v1/send leaves an existing contact's subscription as it is.
    const created = await env.server.app.inject({
      method: 'POST',
      url: '/contacts',
      headers: bearer(account.secretKey),
      payload: { email: to, subscribed: true },
    })
    expect(created.statusCode, created.body).toBeLessThan(300)
    const id = await send(to, account.secretKey, '<p>News</p><a href="{{unsubscribeUrl}}">Unsubscribe</a>')
    await waitForStatus(id, 'SENT')
    const message = sink.messages.find((received) => received.envelope.to.includes(to))
    const href = String(message?.parsed.html).match(/href="https:\/\/track\.example\.org(\/unsubscribe\/[^"]+)"/)?.[1]
    if (!href) throw new Error(`no unsubscribe link in ${message?.parsed.html}`)
    // A scanner's GET shows the page and changes nothing; the recipient's POST unsubscribes.
    const page = await env.server.app.inject({ method: 'GET', url: href })
    expect(page.statusCode).toBe(200)
    expect(kinds(await timeline(id))).toEqual(['accepted', 'sent'])
    const posted = await env.server.app.inject({
      method: 'POST',
      url: href,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    })
    expect(posted.statusCode).toBe(200)

    const body = await timeline(id)
    expect(kinds(body)).toEqual(['accepted', 'sent', 'unsubscribed'])
    expect(entry(body, 'unsubscribed')?.detail).toEqual({ via: 'link' })
    const contact = await env.server.app.inject({
      method: 'GET',
      url: `/contacts/${body.contactId}`,
      headers: bearer(account.secretKey),
    })
    expect(contact.json()).toMatchObject({ email: to, subscribed: false })
    // A second click changes nothing more.
    await env.server.app.inject({ method: 'POST', url: href, payload: {} })
    expect(kinds(await timeline(id))).toEqual(['accepted', 'sent', 'unsubscribed'])
  })

  it('answers a non-uuid id with 422 and the spec’s validation body', async () => {
    const response = await env.server.app.inject({
      method: 'GET',
      url: '/emails/not-an-id',
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(badPathBody('id'))
  })

  it('answers another project’s email, and one that does not exist, with the same 404', async () => {
    const id = await send(uniqueEmail('private'))
    const other = await createAccount(env.server, 'Other project')
    for (const target of [id, '00000000-0000-4000-8000-000000000000']) {
      const response = await env.server.app.inject({
        method: 'GET',
        url: `/emails/${target}`,
        headers: bearer(other.secretKey),
      })
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Email'))
    }
    // A member of the project sees it with their session.
    const mine = await env.server.app.inject({
      method: 'GET',
      url: `/emails/${id}`,
      headers: { cookie: account.cookie, 'x-project-id': account.project.id },
    })
    expect(mine.statusCode, mine.body).toBe(200)
  })
})
