import { randomBytes } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { events as eventsTable } from '../../src/db/schema/index.js'
import type { DkimKey } from '../../src/mail/outbound/compose.js'
import { publishDkimKey, verifyDkim } from '../helpers/dkim.js'
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js'
import { enqueue, eventually, findEmails, testEmail } from '../helpers/emails.js'
import { type Account, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

describe('delivery over SMTP', () => {
  let sink: SmtpSink
  let dns: TestDnsServer
  let key: DkimKey
  let server: TestServer
  let account: Account

  beforeAll(async () => {
    sink = await startSmtpSink()
    dns = await startDnsServer()
    key = publishDkimKey(dns, 'mail.example.test')
    server = await startTestServer({
      config: { mailTransport: 'smtp', smtpUrl: sink.url },
      delivery: {
        resolveDkimKey: async (_projectId, domain) => (domain === key.domainName ? key : undefined),
      },
    })
    account = await createAccount(server)
  })
  afterEach(() => sink.reset())
  afterAll(async () => {
    await server.close()
    await sink.close()
    await dns.close()
  })

  it('delivers both alternatives, exact attachment and inline bytes, custom headers and encoded names', async () => {
    const pdf = randomBytes(10_000)
    const logo = randomBytes(3_000)
    const [id] = await enqueue(server, account.project.id, [
      testEmail({
        from: { email: 'news@mail.example.test', name: 'Zoë Müller, Köln' },
        to: { email: 'reader@example.org', name: '读者 "Reader"' },
        replyTo: 'help@mail.example.test',
        subject: 'Grüße ✉ 测试 — naïve café',
        html: '<h1>Hi</h1><p>See <a href="https://example.org/a">this</a></p><img src="cid:logo@mailroom">',
        headers: { 'X-Entity-Ref': 'abc-123', 'List-Unsubscribe': '<https://example.org/unsubscribe/1>' },
        attachments: [
          { filename: 'report.pdf', contentType: 'application/pdf', content: pdf },
          {
            filename: 'logo.png',
            contentType: 'image/png',
            content: logo,
            contentId: 'logo@mailroom',
            disposition: 'inline',
          },
        ],
      }),
    ])

    const [message] = await sink.waitForMessages(1)
    const parsed = message?.parsed
    expect(message?.envelope).toEqual({ from: 'news@mail.example.test', to: ['reader@example.org'] })
    expect(parsed?.subject).toBe('Grüße ✉ 测试 — naïve café')
    expect(parsed?.from?.value).toEqual([{ address: 'news@mail.example.test', name: 'Zoë Müller, Köln' }])
    expect(parsed?.to && !Array.isArray(parsed.to) ? parsed.to.value : []).toEqual([
      { address: 'reader@example.org', name: '读者 "Reader"' },
    ])
    expect(parsed?.replyTo?.value[0]?.address).toBe('help@mail.example.test')
    expect(parsed?.messageId).toBe(`<${id}@mail.example.test>`)
    expect(parsed?.html).toContain('<h1>Hi</h1>')
    expect(parsed?.text).toContain('See this [https://example.org/a]')
    expect(parsed?.headers.get('x-entity-ref')).toBe('abc-123')
    const report = parsed?.attachments.find((part) => part.filename === 'report.pdf')
    const inline = parsed?.attachments.find((part) => part.filename === 'logo.png')
    expect(report?.content.equals(pdf)).toBe(true)
    expect(report?.contentDisposition).toBe('attachment')
    expect(inline?.content.equals(logo)).toBe(true)
    expect(inline?.contentId).toBe('<logo@mailroom>')
    expect(inline?.related).toBe(true)
  })

  it('signs with DKIM so the message verifies against the key published in DNS', async () => {
    await enqueue(server, account.project.id, [
      testEmail({ from: { email: 'news@mail.example.test', name: 'Ünïcode Sender' }, subject: 'Signed ✓' }),
    ])

    const [message] = await sink.waitForMessages(1)
    const results = await verifyDkim(message?.raw ?? Buffer.alloc(0), dns)
    expect(results).toHaveLength(1)
    expect(results[0]?.status.result).toBe('pass')
    expect(results[0]?.signingDomain).toBe('mail.example.test')
  })

  it('sends mail of a domain without a key unsigned', async () => {
    await enqueue(server, account.project.id, [testEmail({ from: { email: 'a@unsigned.example.test' } })])

    const [message] = await sink.waitForMessages(1)
    expect(message?.parsed.headers.has('dkim-signature')).toBe(false)
  })

  it('marks the email SENT and emits email.sent with the spec payload', async () => {
    const [id = ''] = await enqueue(server, account.project.id, [
      testEmail({ from: { email: 'news@mail.example.test', name: 'News' }, subject: 'Event me' }),
    ])
    await sink.waitForMessages(1)

    await vi.waitFor(async () => {
      const [row] = await findEmails(server, [id])
      expect(row?.status).toBe('SENT')
    }, eventually)
    const [row] = await findEmails(server, [id])
    expect(row?.attempts).toBe(1)
    expect(row?.sentAt).toBeInstanceOf(Date)
    const events = await server.ctx.db
      .select()
      .from(eventsTable)
      .where(and(eq(eventsTable.name, 'email.sent'), sql`${eventsTable.data}->>'emailId' = ${id}`))
    expect(events).toEqual([
      expect.objectContaining({
        name: 'email.sent',
        projectId: account.project.id,
        data: {
          subject: 'Event me',
          from: 'news@mail.example.test',
          fromName: 'News',
          messageId: `${id}@mail.example.test`,
          emailId: id,
          templateId: null,
          campaignId: null,
          sourceType: 'TRANSACTIONAL',
          sentAt: row?.sentAt?.toISOString(),
        },
      }),
    ])
  })
})

describe('waking the outbox', () => {
  let sink: SmtpSink
  let server: TestServer

  beforeAll(async () => {
    sink = await startSmtpSink()
    // With a one-minute poll, only the NOTIFY sent after the commit can explain a prompt delivery.
    server = await startTestServer({
      config: { mailTransport: 'smtp', smtpUrl: sink.url },
      delivery: { pollIntervalMs: 60_000 },
    })
  })
  afterAll(async () => {
    await server.close()
    await sink.close()
  })

  it('sends an email as soon as the transaction that enqueued it commits', async () => {
    const account = await createAccount(server)
    await vi.waitFor(async () => {
      const { rows } = await server.ctx.pool.query(
        "SELECT 1 FROM pg_stat_activity WHERE query LIKE 'LISTEN mailroom_outbox%' AND datname = current_database()",
      )
      expect(rows).toHaveLength(1)
    }, eventually)

    await enqueue(server, account.project.id, [testEmail({ subject: 'Right away' })])

    const [message] = await sink.waitForMessages(1, 5_000)
    expect(message?.parsed.subject).toBe('Right away')
  })
})
