import { eq } from 'drizzle-orm'
import { createTransport } from 'nodemailer'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { emails } from '../../src/db/schema/index.js'
import type { DkimKey } from '../../src/mail/outbound/compose.js'
import { complaintFeedbackId } from '../../src/mail/outbound/feedback-headers.js'
import { type CampaignJson, campaignBody, createCampaignOk } from '../campaigns/campaign-fixtures.js'
import { receiptHtml, receiptText } from '../fixtures/receipt.js'
import { publishDkimKey, verifyDkim } from '../helpers/dkim.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, callAs, createAccount, createContact } from '../helpers/factories.js'
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { contactOf, eventsNamed } from '../inbound/helpers.js'

let sink: SmtpSink
let env: ServerWithDns
/** The mailbox provider that sends complaint reports, with its own DKIM key, SPF and DMARC. */
let reporter: DkimKey

beforeAll(async () => {
  sink = await startSmtpSink()
  // The inbound receiver runs: complaint reports to `fbl@` a sending domain can reach Mailroom.
  env = await startServerWithDns({
    config: { smtpUrl: sink.url, inboundSmtpPort: 0, inboundDomain: 'in.mailroom.test' },
  })
  env.dns.set('mbp.test', 'TXT', ['v=spf1 ip4:127.0.0.1 -all'])
  env.dns.set('_dmarc.mbp.test', 'TXT', ['v=DMARC1; p=reject'])
  reporter = publishDkimKey(env.dns, 'mbp.test', 'fbl')
})
afterAll(async () => {
  await env?.close()
  await sink?.close()
})
beforeEach(() => sink.reset())

type Sender = { account: Account; domain: string; from: string }

let senders = 0
async function sender(): Promise<Sender> {
  const account = await createAccount(env.server)
  const domain = `fb${++senders}-${process.pid}.mailroom.test`
  await addVerifiedDomain(env.server, env.dns, account, domain)
  return { account, domain, from: `news@${domain}` }
}

/** The header block as a receiver reads it: each field on one line. */
function headerOf(message: ReceivedMessage | undefined, name: string): string[] {
  const head = (message?.raw.toString('latin1') ?? '').split('\r\n\r\n')[0]?.replace(/\r\n[ \t]+/g, ' ') ?? ''
  const prefix = `${name.toLowerCase()}:`
  return head
    .split('\r\n')
    .filter((line) => line.toLowerCase().startsWith(prefix))
    .map((line) => line.slice(prefix.length).trim())
}

async function sentCampaign(
  { account, from }: Sender,
  // The pre-send check refuses a campaign without an unsubscribe link.
  body = '<p>Spring is here</p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>',
) {
  const contact = await createContact(env.server, account, { subscribed: true })
  const campaign = await createCampaignOk(env.server, account, campaignBody(from, { body }))
  expect((await callAs(env.server, account)('POST', `/campaigns/${campaign.id}/send`)).statusCode).toBe(200)
  const [message] = await sink.waitForMessages(1)
  const [email] = await env.server.ctx.db.select().from(emails).where(eq(emails.campaignId, campaign.id))
  if (!email) throw new Error('the campaign queued no email')
  return { contact, campaign, message, email }
}

function send({ account }: Sender, payload: object) {
  return env.server.app.inject({ method: 'POST', url: '/v1/send', headers: bearer(account.secretKey), payload })
}

describe('the headers large receivers ask for', () => {
  it('a campaign email carries Feedback-ID and the CFBL pair, covered by a signature mailauth verifies', async () => {
    const owner = await sender()
    const { campaign, message, email } = await sentCampaign(owner)
    const projectId = owner.account.project.id as string

    expect(headerOf(message, 'Feedback-ID')).toEqual([
      `${(campaign as CampaignJson).id}:campaign:${projectId}:mailroom`,
    ])
    expect(headerOf(message, 'CFBL-Address')).toEqual([`fbl@${owner.domain}; report=arf`])
    expect(headerOf(message, 'CFBL-Feedback-ID')).toEqual([complaintFeedbackId(env.server.config.secret, email.id)])

    const [result, ...others] = await verifyDkim(message?.raw ?? Buffer.alloc(0), env.dns)
    expect(others).toEqual([])
    expect(result?.status.result).toBe('pass')
    expect(result?.signingDomain).toBe(owner.domain)
    const signed = String(result?.signingHeaders?.keys ?? '')
      .toLowerCase()
      .split(/\s*:\s*/)
    expect(signed).toEqual(expect.arrayContaining(['feedback-id', 'cfbl-address', 'cfbl-feedback-id']))
  })

  it('a transactional email has Feedback-ID but no CFBL, and its text part reads a receipt as rows', async () => {
    const owner = await sender()
    const response = await send(owner, {
      to: 'reader@example.net',
      subject: 'Your receipt',
      body: receiptHtml,
      from: owner.from,
    })
    expect(response.statusCode).toBe(200)
    const [message] = await sink.waitForMessages(1)

    expect(headerOf(message, 'Feedback-ID')).toEqual([`:transactional:${owner.account.project.id}:mailroom`])
    expect(headerOf(message, 'CFBL-Address')).toEqual([])
    expect(headerOf(message, 'CFBL-Feedback-ID')).toEqual([])
    const [result] = await verifyDkim(message?.raw ?? Buffer.alloc(0), env.dns)
    expect(result?.status.result).toBe('pass')
    expect(String(result?.signingHeaders?.keys).toLowerCase()).toContain('feedback-id')

    expect(message?.parsed.text?.trimEnd()).toBe(receiptText)
    // The HTML part is the one the sender wrote.
    expect(message?.parsed.html).toContain('<td>A Wizard of Earthsea (hardback)</td>')
  })

  it("keeps a caller's own Feedback-ID, once; refuses a CFBL header from the caller with the field's path, sending nothing", async () => {
    const owner = await sender()
    const own = { to: 'a@example.net', subject: 'Own', body: '<p>x</p>', from: owner.from }
    expect((await send(owner, { ...own, headers: { 'feedback-id': 'spring:promo:shop:acme1' } })).statusCode).toBe(200)
    const [message] = await sink.waitForMessages(1)
    expect(headerOf(message, 'Feedback-ID')).toEqual(['spring:promo:shop:acme1'])

    for (const name of ['CFBL-Address', 'cfbl-feedback-id']) {
      const refused = await send(owner, { ...own, headers: { [name]: 'fbl@attacker.test' } })
      expect(refused.statusCode).toBe(422)
      expect(refused.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [expect.objectContaining({ field: `headers.${name}` })],
      })
    }
    expect(sink.messages).toHaveLength(1)
  })
})

/** An ARF report (RFC 5965) as a mailbox provider sends it, with only the headers RFC 9477 requires. */
function complaintReport(to: string, feedbackId: string, options: { signed?: boolean; messageId?: string } = {}) {
  const port = env.server.inbound?.port
  if (port === undefined) throw new Error('the inbound receiver is not running')
  const boundary = 'report-boundary-1'
  const raw = [
    'From: Feedback Loop <fbl@mbp.test>',
    `To: ${to}`,
    'Subject: Complaint about a message',
    `Message-ID: <${options.messageId ?? `${Math.random().toString(36).slice(2)}@mbp.test`}>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'A recipient marked this message as spam.',
    `--${boundary}`,
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: MBP-FBL/1.0',
    'Version: 1',
    '',
    `--${boundary}`,
    'Content-Type: text/rfc822-headers; charset=utf-8',
    '',
    `CFBL-Feedback-ID: ${feedbackId}`,
    '',
    `--${boundary}--`,
    '',
  ].join('\r\n')
  const dkim = { domainName: reporter.domainName, keySelector: reporter.selector, privateKey: reporter.privateKeyPem }
  return createTransport({ host: '127.0.0.1', port, name: 'mx.mbp.test' }).sendMail({
    envelope: { from: 'bounces@mbp.test', to: [to] },
    raw,
    ...(options.signed === false ? {} : { dkim }),
  })
}

async function emailRow(id: string) {
  const [row] = await env.server.ctx.db.select().from(emails).where(eq(emails.id, id))
  return row
}

describe('complaint reports to the CFBL address', () => {
  beforeEach(async () => {
    await env.server.ctx.pool.query("DELETE FROM events WHERE name IN ('email.received', 'email.complaint')")
  })

  it('mark the reported email COMPLAINED, suppress the address and unsubscribe the contact', async () => {
    const owner = await sender()
    const { contact, message, email } = await sentCampaign(owner)
    const [address] = headerOf(message, 'CFBL-Address')
    const [feedbackId] = headerOf(message, 'CFBL-Feedback-ID')
    const info = await complaintReport(address?.split(';')[0] ?? '', feedbackId ?? '')
    expect(info.accepted).toEqual([`fbl@${owner.domain}`])

    expect(await emailRow(email.id)).toMatchObject({ status: 'COMPLAINED', complainedAt: expect.any(Date) })
    const complaints = await eventsNamed(env.server, 'email.complaint')
    expect(complaints.map((event) => event.project_id)).toEqual([owner.account.project.id])
    expect(await contactOf(env.server, owner.account.project.id, contact.email)).toMatchObject({ subscribed: false })
    const { rows } = await env.server.ctx.pool.query(
      'SELECT reason FROM suppressions WHERE project_id = $1 AND email = $2',
      [owner.account.project.id, contact.email],
    )
    expect(rows).toEqual([{ reason: 'complaint' }])
    // Taken as a report: no `email.received` for the complaint mailbox.
    expect(await eventsNamed(env.server, 'email.received')).toEqual([])
  })

  it('leave the email alone when unsigned, not ours, or sent to another domain; each is ordinary inbound mail', async () => {
    const owner = await sender()
    const other = await sender()
    const { email } = await sentCampaign(owner)
    const feedbackId = complaintFeedbackId(env.server.config.secret, email.id)
    // One character of the MAC changed.
    const forged = `${feedbackId.slice(0, -1)}${feedbackId.endsWith('A') ? 'B' : 'A'}`

    await complaintReport(`fbl@${owner.domain}`, feedbackId, { signed: false })
    await complaintReport(`fbl@${owner.domain}`, forged)
    // Another project's complaint mailbox: a recipient's copy of the headers cannot complain elsewhere.
    await complaintReport(`fbl@${other.domain}`, feedbackId)

    expect(await emailRow(email.id)).toMatchObject({ status: 'SENT', complainedAt: null })
    expect(await eventsNamed(env.server, 'email.complaint')).toEqual([])
    const received = await eventsNamed(env.server, 'email.received')
    expect(received.map((event) => event.project_id)).toEqual([
      owner.account.project.id,
      owner.account.project.id,
      other.account.project.id,
    ])
  })
})
