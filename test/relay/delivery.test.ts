import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SubmissionHandler } from '../../src/mail/submission/handler.js'
import { createSubmissionHandler } from '../../src/modules/relay/handler.js'
import { verifyDkim } from '../helpers/dkim.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { composeRaw, submission } from './helpers.js'

let sink: SmtpSink
let env: ServerWithDns
let handler: SubmissionHandler
let tracked: Account
let plain: Account

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url, publicUrl: 'https://mail.example.test' } })
  handler = createSubmissionHandler(env.server.ctx)
  tracked = await createAccount(env.server, 'Tracked')
  plain = await createAccount(env.server, 'Plain')
  await addVerifiedDomain(env.server, env.dns, tracked, 'tracked.example.com')
  await addVerifiedDomain(env.server, env.dns, plain, 'plain.example.com')
  const enabled = await env.server.app.inject({
    method: 'PATCH',
    url: `/users/@me/projects/${tracked.project.id}`,
    headers: { cookie: tracked.cookie },
    payload: { tracking: 'ENABLED' },
  })
  expect(enabled.statusCode).toBe(200)
})
afterAll(async () => {
  await env.close()
  await sink.close()
})
beforeEach(() => sink.reset())

/** A part of a raw message, from its Content-Type header to the boundary after it, as text. */
function partOf(raw: Buffer, contentType: string): string {
  const text = raw.toString('latin1')
  const start = text.indexOf(`Content-Type: ${contentType}`)
  expect(start).toBeGreaterThan(-1)
  return text.slice(start, text.indexOf('\r\n--', start))
}

type ActivityItem = { name: string; data: Record<string, unknown> }

async function sentActivity(account: Account): Promise<ActivityItem[]> {
  const response = await env.server.app.inject({
    method: 'GET',
    url: '/activity?limit=100',
    headers: bearer(account.secretKey),
  })
  expect(response.statusCode).toBe(200)
  return response.json<{ data: ActivityItem[] }>().data.filter((item) => item.name === 'email.sent')
}

describe('delivering relayed mail', () => {
  it("tracks a tracked project's relayed mail in its HTML part only: the text part and the attachment go as written", async () => {
    const report = randomBytes(8_000)
    const raw = await composeRaw({
      from: 'app@tracked.example.com',
      to: 'reader@example.net',
      subject: 'Weekly report',
      text: 'Open https://app.example/report/7 to read it.',
      // Long enough to carry the open pixel (HTML over 3,200 characters).
      html: `<html><body><p>Open <a href="https://app.example/report/7">the report</a>.</p>${'<p>Numbers of the week.</p>'.repeat(130)}</body></html>`,
      attachments: [{ filename: 'report.xlsx', content: report, contentType: 'application/vnd.ms-excel' }],
    })
    const { emailIds } = await handler.accept(
      submission(tracked.project.id, raw, { from: 'app@tracked.example.com', to: ['reader@example.net'] }),
    )

    const [message] = await sink.waitForMessages(1)
    const delivered = message?.raw ?? Buffer.alloc(0)
    const html = message?.parsed.html || ''
    expect(html).toContain('<a href="https://mail.example.test/t/click/')
    expect(html).not.toContain('href="https://app.example/report/7"')
    expect(html).toMatch(/<img src="https:\/\/mail\.example\.test\/t\/open\/[^"]+" width="1" height="1"/)
    expect(partOf(delivered, 'text/plain')).toBe(partOf(raw, 'text/plain'))
    expect(partOf(delivered, 'application/vnd.ms-excel')).toBe(partOf(raw, 'application/vnd.ms-excel'))
    expect(message?.parsed.attachments[0]?.content.equals(report)).toBe(true)
    expect(await verifyDkim(delivered, env.dns)).toEqual([
      expect.objectContaining({
        signingDomain: 'tracked.example.com',
        status: expect.objectContaining({ result: 'pass' }),
      }),
    ])

    // The redirect leads back to the link as written, and counts the click for this email (sent minutes ago: a
    // click within seconds of the handover is a link scanner's).
    await vi.waitFor(async () => {
      const { rowCount } = await env.server.ctx.pool.query(
        "UPDATE emails SET sent_at = now() - interval '5 minutes' WHERE id = $1 AND sent_at IS NOT NULL",
        [emailIds[0]],
      )
      expect(rowCount).toBe(1)
    }, eventually)
    const clickPath = /href="https:\/\/mail\.example\.test(\/t\/click\/[^"]+)"/.exec(html)?.[1] ?? ''
    const click = await env.server.app.inject({ method: 'GET', url: clickPath })
    expect(click.statusCode).toBe(302)
    expect(click.headers.location).toBe('https://app.example/report/7')
    await vi.waitFor(async () => {
      const rows = await env.server.ctx.pool.query('SELECT clicks FROM emails WHERE id = $1', [emailIds[0]])
      expect(rows.rows[0]).toEqual({ clicks: 1 })
    }, eventually)
  })

  it('sends an untracked project the HTML as written', async () => {
    const html = '<p><a href="https://app.example/x">x</a></p>'
    const raw = await composeRaw({ from: 'app@plain.example.com', to: 'reader@example.net', subject: 'x', html })
    await handler.accept(
      submission(plain.project.id, raw, { from: 'app@plain.example.com', to: ['reader@example.net'] }),
    )
    const [message] = await sink.waitForMessages(1)
    const delivered = message?.raw.toString('latin1') ?? ''
    // Only our signature and the feedback loops' Feedback-ID (Gmail's) in front of the client's bytes, both signed.
    const feedbackId = `Feedback-ID: :transactional:${plain.project.id}:mailroom\r\n`
    expect(delivered.startsWith('DKIM-Signature: ')).toBe(true)
    expect(delivered.endsWith(feedbackId + raw.toString('latin1'))).toBe(true)
    expect(String(message?.parsed.headerLines.find((line) => line.key === 'dkim-signature')?.line)).toMatch(
      /h=[^;]*feedback-id/i,
    )
    expect(await verifyDkim(message?.raw ?? Buffer.alloc(0), env.dns)).toEqual([
      expect.objectContaining({ status: expect.objectContaining({ result: 'pass' }) }),
    ])
    expect(message?.parsed.html).toContain(html)
  })

  it('shows relayed emails in the activity feed as TRANSACTIONAL email.sent, to their own project only', async () => {
    const raw = await composeRaw({ from: 'app@plain.example.com', to: 'feed@example.net', subject: 'In the feed' })
    const { emailIds } = await handler.accept(
      submission(plain.project.id, raw, { from: 'app@plain.example.com', to: ['feed@example.net'] }),
    )
    await sink.waitForMessages(1)
    await vi.waitFor(async () => {
      const sent = await sentActivity(plain)
      expect(sent.find((item) => item.data.emailId === emailIds[0])?.data).toMatchObject({
        emailId: emailIds[0],
        subject: 'In the feed',
        from: 'app@plain.example.com',
        sourceType: 'TRANSACTIONAL',
      })
    }, eventually)
    expect((await sentActivity(tracked)).some((item) => item.data.emailId === emailIds[0])).toBe(false)
  })

  it('goes with its project: deleting the project deletes its relayed messages and their emails', async () => {
    const doomed = await createAccount(env.server, 'Doomed')
    await addVerifiedDomain(env.server, env.dns, doomed, 'doomed.example.com')
    const raw = await composeRaw({ from: 'app@doomed.example.com', to: 'bye@example.net', subject: 'x', text: 'x' })
    const { emailIds } = await handler.accept(
      submission(doomed.project.id, raw, { from: 'app@doomed.example.com', to: ['bye@example.net'] }),
    )
    // Recorded first: a delete racing the outbox's record of the send is another matter (a deadlock, retried).
    await vi.waitFor(async () => {
      const rows = await env.server.ctx.pool.query('SELECT status FROM emails WHERE id = $1', [emailIds[0]])
      expect(rows.rows[0]).toEqual({ status: 'SENT' })
    }, eventually)
    const deleted = await env.server.app.inject({
      method: 'DELETE',
      url: `/users/@me/projects/${doomed.project.id}`,
      headers: { cookie: doomed.cookie },
      payload: { confirm: 'Doomed' },
    })
    expect(deleted.statusCode, deleted.body).toBe(200)
    const left = await env.server.ctx.pool.query(
      'SELECT (SELECT count(*) FROM submitted_messages WHERE project_id = $1)::int AS messages, (SELECT count(*) FROM emails WHERE project_id = $1)::int AS emails',
      [doomed.project.id],
    )
    expect(left.rows[0]).toEqual({ messages: 0, emails: 0 })
  })
})
