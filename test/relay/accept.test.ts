import { randomBytes, randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SubmissionHandler } from '../../src/mail/submission/handler.js'
import { createSubmissionHandler } from '../../src/modules/relay/handler.js'
import { readSubmittedMessage } from '../../src/modules/relay/message-headers.js'
import { storeSubmissions } from '../../src/modules/relay/store.js'
import { emailCount, setLimits, usageOf } from '../billing/helpers.js'
import { verifyDkim } from '../helpers/dkim.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { type Account, bearer, createAccount, createContact } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { composeRaw, refusalOf, submission } from './helpers.js'

let sink: SmtpSink
let env: ServerWithDns
let handler: SubmissionHandler
let account: Account

const domain = 'relay.example.com'
const brand = 'brand.example.com'

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  handler = createSubmissionHandler(env.server.ctx)
  account = await createAccount(env.server)
  await addVerifiedDomain(env.server, env.dns, account, domain)
  await addVerifiedDomain(env.server, env.dns, account, brand)
})
afterAll(async () => {
  await env.close()
  await sink.close()
})
beforeEach(() => sink.reset())

type EmailRow = {
  id: string
  to_email: string
  from_email: string
  subject: string
  source_type: string
  message_id: string
  submitted_message_id: string | null
  status: string
}

async function emailRows(projectId: string, ids: readonly string[]): Promise<EmailRow[]> {
  const result = await env.server.ctx.db.execute<EmailRow>(sql`
    SELECT id, to_email, from_email, subject, source_type, message_id, submitted_message_id, status FROM emails
    WHERE project_id = ${projectId} AND id = ANY(${sql.param([...ids])}::uuid[]) ORDER BY to_email`)
  return result.rows
}

async function storedMessages(projectId: string): Promise<number> {
  const result = await env.server.ctx.db.execute<{ count: number }>(
    sql`SELECT count(*)::int AS count FROM submitted_messages WHERE project_id = ${projectId}`,
  )
  return result.rows[0]?.count ?? 0
}

/** The header section of a raw message, as text. */
const headerSection = (raw: Buffer) => raw.subarray(0, raw.indexOf('\r\n\r\n')).toString('latin1')

/** The bytes of a message after the DKIM-Signature field the outbox put in front. */
/** The message behind our DKIM signature and the Feedback-ID we add (both ours, in front of the client's bytes). */
function afterOurHeaders(raw: Buffer): Buffer {
  const text = raw.toString('latin1')
  const match = /^DKIM-Signature:.*?\r\n(?![ \t])Feedback-ID: [^\r]*\r\n/s.exec(text)
  expect(match).not.toBeNull()
  return raw.subarray(match?.[0].length ?? 0)
}

describe('accepting a submission', () => {
  it('makes one email per envelope recipient, each delivered once to its own address, exactly as the client wrote it, Bcc aside', async () => {
    const invoice = randomBytes(6_000)
    const logo = randomBytes(1_500)
    const raw = await composeRaw({
      from: { name: 'Zoë at the Shop', address: `shop@${domain}` },
      to: 'to@example.net',
      cc: 'cc@example.net',
      bcc: 'hidden@example.net',
      subject: 'Your invoice — Grüße',
      messageId: `<invoice-42.client@${domain}>`,
      headers: { 'X-App-Ref': 'inv-42', 'List-Id': '<billing.shop.example>' },
      text: 'Your invoice is attached.\nhttps://shop.example/invoices/42',
      html: '<p>Your invoice is attached. <a href="https://shop.example/invoices/42">View</a></p><img src="cid:logo@shop">',
      attachments: [
        { filename: 'invoice-42.pdf', content: invoice, contentType: 'application/pdf' },
        { filename: 'logo.png', content: logo, contentType: 'image/png', cid: 'logo@shop' },
      ],
    })
    expect(headerSection(raw)).toMatch(/^Bcc: hidden@example\.net$/m)
    const envelope = { from: `bounces@${domain}`, to: ['to@example.net', 'cc@example.net', 'hidden@example.net'] }

    const { emailIds } = await handler.accept(submission(account.project.id, raw, envelope))

    expect(emailIds).toHaveLength(3)
    expect(new Set(emailIds).size).toBe(3)
    const rows = await emailRows(account.project.id, emailIds)
    expect(rows.map((row) => row.to_email)).toEqual(['cc@example.net', 'hidden@example.net', 'to@example.net'])
    for (const row of rows) {
      expect(row).toMatchObject({
        from_email: `shop@${domain}`,
        subject: 'Your invoice — Grüße',
        source_type: 'TRANSACTIONAL',
        message_id: `invoice-42.client@${domain}`,
        submitted_message_id: rows[0]?.submitted_message_id,
      })
    }
    expect(emailIds[0]).toBe(rows.find((row) => row.to_email === 'to@example.net')?.id)

    const messages = await sink.waitForMessages(3)
    // Each exactly once: wait for the three to be SENT, then count again.
    await vi.waitFor(async () => {
      expect((await emailRows(account.project.id, emailIds)).map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT'])
    }, eventually)
    expect(sink.messages).toHaveLength(3)
    expect(messages.map((message) => message.envelope.to).sort()).toEqual([
      ['cc@example.net'],
      ['hidden@example.net'],
      ['to@example.net'],
    ])
    const withoutBcc = Buffer.from(raw.toString('latin1').replace(/^Bcc: .*\r\n/m, ''), 'latin1')
    for (const message of messages) {
      expect(message.envelope.from).toBe(`bounces@${domain}`)
      expect(headerSection(message.raw)).not.toMatch(/^bcc:/im)
      // Everything the client wrote, byte for byte, behind our signature and Feedback-ID.
      expect(afterOurHeaders(message.raw).equals(withoutBcc)).toBe(true)
      const parsed = message.parsed
      expect(parsed.messageId).toBe(`<invoice-42.client@${domain}>`)
      expect(parsed.headers.get('x-app-ref')).toBe('inv-42')
      expect(parsed.subject).toBe('Your invoice — Grüße')
      expect(parsed.attachments.find((part) => part.filename === 'invoice-42.pdf')?.content.equals(invoice)).toBe(true)
      const inline = parsed.attachments.find((part) => part.filename === 'logo.png')
      expect(inline?.content.equals(logo)).toBe(true)
      expect(inline?.contentId).toBe('<logo@shop>')
      expect(await verifyDkim(message.raw, env.dns)).toEqual([
        expect.objectContaining({ signingDomain: domain, status: expect.objectContaining({ result: 'pass' }) }),
      ])
    }
    expect(await storedMessages(account.project.id)).toBeGreaterThanOrEqual(1)
  })

  it("signs with the From header's domain and checks it when it differs from MAIL FROM's", async () => {
    const raw = await composeRaw({ from: `news@${brand}`, to: 'reader@example.net', subject: 'Brand news', text: 'Hi' })
    const { emailIds } = await handler.accept(
      submission(account.project.id, raw, { from: `bounces@${domain}`, to: ['reader@example.net'] }),
    )
    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope.from).toBe(`bounces@${domain}`)
    expect(await verifyDkim(message?.raw ?? Buffer.alloc(0), env.dns)).toEqual([
      expect.objectContaining({ signingDomain: brand, status: expect.objectContaining({ result: 'pass' }) }),
    ])
    expect((await emailRows(account.project.id, emailIds))[0]?.from_email).toBe(`news@${brand}`)

    const before = await emailCount(env.server, account.project.id)
    const foreign = await composeRaw({ from: 'ceo@bank.example', to: 'reader@example.net', subject: 'x', text: 'x' })
    expect(
      await refusalOf(
        handler.accept(submission(account.project.id, foreign, { from: `app@${domain}`, to: ['reader@example.net'] })),
      ),
    ).toEqual({ code: 550, message: '5.7.1 Sender domain bank.example is not registered to this project' })
    expect(await emailCount(env.server, account.project.id)).toBe(before)
  })

  it('refuses a message without a From header with 550 5.6.0 and stores nothing', async () => {
    const raw = Buffer.from('To: reader@example.net\r\nSubject: anonymous\r\n\r\nWho sent this?\r\n')
    const before = await storedMessages(account.project.id)
    expect(
      await refusalOf(
        handler.accept(submission(account.project.id, raw, { from: `app@${domain}`, to: ['reader@example.net'] })),
      ),
    ).toEqual({ code: 550, message: '5.6.0 The message has no From header; receivers need one to judge it' })
    expect(await storedMessages(account.project.id)).toBe(before)
  })

  it('gives a message without a Message-ID or a Date its own, the same for every recipient', async () => {
    const raw = Buffer.from(
      `From: app@${domain}\r\nTo: a@example.net, b@example.net\r\nSubject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\r\n\r\nHello\r\n`,
    )
    const { emailIds } = await handler.accept(
      submission(account.project.id, raw, { from: `app@${domain}`, to: ['a@example.net', 'b@example.net'] }),
    )
    const rows = await emailRows(account.project.id, emailIds)
    expect(rows[0]?.subject).toBe('Grüße')
    const messageId = rows[0]?.message_id
    expect(messageId).toBe(`${rows[0]?.submitted_message_id}@${domain}`)
    expect(rows[1]?.message_id).toBe(messageId)
    const messages = await sink.waitForMessages(2)
    for (const message of messages) {
      expect(message.parsed.messageId).toBe(`<${messageId}>`)
      expect(message.parsed.date).toBeInstanceOf(Date)
      expect(message.parsed.text).toBe('Hello\n')
    }
  })

  it('upserts each recipient as a contact: a new one unsubscribed, an existing one unchanged', async () => {
    const subscribed = await createContact(env.server, account, { subscribed: true, data: { plan: 'pro' } })
    const unsubscribed = await createContact(env.server, account, { subscribed: false })
    const fresh = `new-${randomBytes(4).toString('hex')}@example.net`
    const raw = await composeRaw({ from: `app@${domain}`, to: 'undisclosed-recipients:;', subject: 'Hi', text: 'x' })
    await handler.accept(
      submission(account.project.id, raw, {
        from: `app@${domain}`,
        to: [subscribed.email.toUpperCase(), unsubscribed.email, fresh],
      }),
    )
    const contacts = await env.server.ctx.pool.query<{ email: string; subscribed: boolean; data: unknown }>(
      'SELECT email, subscribed, data FROM contacts WHERE project_id = $1 AND email = ANY($2) ORDER BY email',
      [account.project.id, [subscribed.email, unsubscribed.email, fresh]],
    )
    expect(contacts.rows).toEqual(
      [
        { email: subscribed.email, subscribed: true, data: { plan: 'pro' } },
        { email: unsubscribed.email, subscribed: false, data: {} },
        { email: fresh, subscribed: false, data: {} },
      ].sort((a, b) => a.email.localeCompare(b.email)),
    )
    await sink.waitForMessages(3)
  })

  it('an Idempotency-Key makes a resubmission after a lost 250 a no-op, and never reaches the recipient', async () => {
    const key = `relay-${randomBytes(6).toString('hex')}`
    const raw = await composeRaw({
      from: `app@${domain}`,
      to: 'once@example.net',
      subject: 'Only once',
      text: 'x',
      headers: { 'Idempotency-Key': key },
    })
    const envelope = { from: `app@${domain}`, to: ['once@example.net'] }
    const first = await handler.accept(submission(account.project.id, raw, envelope))
    expect(first.emailIds).toHaveLength(1)
    const again = await handler.accept(submission(account.project.id, raw, envelope))
    expect(again).toEqual(first)
    const rows = await env.server.ctx.pool.query(
      `SELECT id FROM emails WHERE project_id = $1 AND to_email = 'once@example.net'`,
      [account.project.id],
    )
    expect(rows.rows).toEqual([{ id: first.emailIds[0] }])
    const [message] = await sink.waitForMessages(1)
    expect(headerSection(message?.raw ?? Buffer.alloc(0))).not.toMatch(/idempotency-key/i)

    // The same key in another project is another key.
    const other = await createAccount(env.server, 'Other')
    await addVerifiedDomain(env.server, env.dns, other, 'other-relay.example.com')
    const theirs = await composeRaw({
      from: 'app@other-relay.example.com',
      to: 'once@example.net',
      subject: 'x',
      text: 'x',
      headers: { 'Idempotency-Key': key },
    })
    const accepted = await handler.accept(
      submission(other.project.id, theirs, { from: 'app@other-relay.example.com', to: ['once@example.net'] }),
    )
    expect(accepted.emailIds).toHaveLength(1)
  })

  it('refuses an Idempotency-Key an API request already used, with 550 5.6.0', async () => {
    const key = `api-${randomBytes(6).toString('hex')}`
    const sent = await env.server.app.inject({
      method: 'POST',
      url: '/v1/send',
      headers: { ...bearer(account.secretKey), 'idempotency-key': key },
      payload: { to: 'api@example.net', subject: 'API', body: '<p>x</p>', from: `app@${domain}` },
    })
    expect(sent.statusCode).toBe(200)
    const raw = await composeRaw({
      from: `app@${domain}`,
      to: 'api@example.net',
      subject: 'x',
      text: 'x',
      headers: { 'Idempotency-Key': key },
    })
    expect(
      await refusalOf(
        handler.accept(submission(account.project.id, raw, { from: `app@${domain}`, to: ['api@example.net'] })),
      ),
    ).toEqual({ code: 550, message: '5.6.0 This Idempotency-Key was already used by another request (POST /v1/send)' })
    await sink.waitForMessages(1)
  })

  it('over the monthly transactional cap: 452 4.3.1 and nothing stored, no contact, no usage', async () => {
    const capped = await createAccount(env.server, 'Capped')
    await addVerifiedDomain(env.server, env.dns, capped, 'capped.example.com')
    await setLimits(env.server, capped, { transactional: 1 })
    const raw = await composeRaw({ from: 'app@capped.example.com', to: 'x@example.net', subject: 'x', text: 'x' })
    const refused = await refusalOf(
      handler.accept(
        submission(capped.project.id, raw, { from: 'app@capped.example.com', to: ['x@example.net', 'y@example.net'] }),
      ),
    )
    expect(refused.code).toBe(452)
    expect(refused.message).toMatch(/^4\.3\.1 The project's monthly transactional limit of 1 emails is reached/)
    expect(await emailCount(env.server, capped.project.id)).toBe(0)
    expect(await storedMessages(capped.project.id)).toBe(0)
    expect(await usageOf(env.server, capped.project.id, 'transactional')).toBe(0)
    const contacts = await env.server.ctx.pool.query('SELECT 1 FROM contacts WHERE project_id = $1', [
      capped.project.id,
    ])
    expect(contacts.rowCount).toBe(0)
  })

  it('submissions ending together share a commit, and one over its cap is refused alone', async () => {
    const capped = await createAccount(env.server, 'Capped together')
    await addVerifiedDomain(env.server, env.dns, capped, 'capped-together.example.com')
    await setLimits(env.server, capped, { transactional: 1 })
    const shared = `shared-${randomBytes(4).toString('hex')}@example.net`
    const ours = await Promise.all(
      Array.from({ length: 6 }, async (_, index) => {
        const raw = await composeRaw({ from: `app@${domain}`, to: shared, subject: `Together ${index}`, text: 'x' })
        // The same new contact in every one of them: upserted once per transaction, never twice in a statement.
        return handler.accept(submission(account.project.id, raw, { from: `app@${domain}`, to: [shared] }))
      }),
    )
    const theirs = await composeRaw({ from: 'app@capped-together.example.com', to: 'a@example.net', text: 'x' })
    const [refused, ...accepted] = await Promise.allSettled([
      handler.accept(
        submission(capped.project.id, theirs, {
          from: 'app@capped-together.example.com',
          to: ['a@example.net', 'b@example.net'],
        }),
      ),
      ...Array.from({ length: 6 }, async (_, index) => {
        const raw = await composeRaw({ from: `app@${domain}`, to: shared, subject: `Beside ${index}`, text: 'x' })
        return handler.accept(submission(account.project.id, raw, { from: `app@${domain}`, to: [shared] }))
      }),
    ])
    expect(refused).toMatchObject({ status: 'rejected', reason: { responseCode: 452 } })
    expect(accepted.map((outcome) => outcome.status)).toEqual(Array(6).fill('fulfilled'))
    expect(await emailCount(env.server, capped.project.id)).toBe(0)
    expect(ours.every((result) => result.emailIds.length === 1)).toBe(true)
    const contacts = await env.server.ctx.pool.query(
      'SELECT subscribed FROM contacts WHERE project_id = $1 AND email = $2',
      [account.project.id, shared],
    )
    expect(contacts.rows).toEqual([{ subscribed: false }])
    await sink.waitForMessages(12)
  })

  it('a submission waits for those of the other open transactions, and they share its commit', async () => {
    const recipients = ['first', 'second', 'third'].map(
      (name) => `${name}-${randomBytes(4).toString('hex')}@example.net`,
    )
    const raws = await Promise.all(
      recipients.map((to, index) => composeRaw({ from: `app@${domain}`, to, subject: `Gathered ${index}`, text: 'x' })),
    )
    const submitted = (index: number) => ({
      ...submission(account.project.id, raws[index] ?? Buffer.alloc(0), {
        from: `app@${domain}`,
        to: [recipients[index] ?? ''],
      }),
      // As the server says when three connections each have a message under way.
      openTransactions: 3,
    })
    const first = handler.accept(submitted(0))
    // The first one's commit could start now; it waits for the two others, which end a turn later.
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    await Promise.all([first, handler.accept(submitted(1)), handler.accept(submitted(2))])
    // now() is the transaction's start: one value for all three rows, one commit.
    const stored = await env.server.ctx.pool.query<{ commits: number }>(
      'SELECT count(DISTINCT created_at)::int AS commits FROM emails WHERE project_id = $1 AND to_email = ANY($2)',
      [account.project.id, recipients],
    )
    expect(stored.rows).toEqual([{ commits: 1 }])
  })

  it('the same Idempotency-Key submitted twice at once stores the message once', async () => {
    const raw = await composeRaw({
      from: `app@${domain}`,
      to: 'race@example.net',
      subject: 'Raced',
      text: 'x',
      headers: { 'Idempotency-Key': `race-${randomBytes(6).toString('hex')}` },
    })
    const envelope = { from: `app@${domain}`, to: ['race@example.net'] }
    const results = await Promise.all([
      handler.accept(submission(account.project.id, raw, envelope)),
      handler.accept(submission(account.project.id, raw, envelope)),
    ])
    expect(results[0]?.emailIds).toHaveLength(1)
    expect(results[1]).toEqual(results[0])
    await sink.waitForMessages(1)
    const rows = await env.server.ctx.pool.query(
      `SELECT count(*)::int AS count FROM emails WHERE project_id = $1 AND to_email = 'race@example.net'`,
      [account.project.id],
    )
    expect(rows.rows).toEqual([{ count: 1 }])
  })

  it("one group commit stores submissions from two projects to one address, each with its project's contact", async () => {
    const other = await createAccount(env.server, 'Other project')
    const address = `both-${randomBytes(4).toString('hex')}@example.net`
    const raw = await composeRaw({ from: `app@${domain}`, to: address, subject: 'Grouped', text: 'x' })
    const item = (projectId: string) => {
      const id = randomUUID()
      return {
        id,
        projectId,
        mailFrom: `app@${domain}`,
        message: readSubmittedMessage(raw, id, new Date()),
        recipients: [address],
      }
    }
    const stored = await storeSubmissions(env.server.ctx, [
      item(account.project.id),
      item(account.project.id),
      item(other.project.id),
    ])
    expect(stored.map((ids) => ids.length)).toEqual([1, 1, 1])
    const rows = await env.server.ctx.pool.query<{ project_id: string; contact: string }>(
      `SELECT e.project_id, c.project_id AS contact FROM emails AS e JOIN contacts AS c ON c.id = e.contact_id
       WHERE e.id = ANY($1) ORDER BY e.project_id`,
      [stored.flat()],
    )
    expect(rows.rows.every((row) => row.project_id === row.contact)).toBe(true)
    expect(rows.rowCount).toBe(3)
    await sink.waitForMessages(3)
  })
})
