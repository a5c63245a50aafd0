import { createTransport, type SendMailOptions } from 'nodemailer'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { DkimKey } from '../../src/mail/outbound/compose.js'
import { subscriptionToken } from '../../src/mail/outbound/subscription-links.js'
import { acceptsInboundRecipient, receiveInboundMessage } from '../../src/modules/inbound/service.js'
import { publishDkimKey } from '../helpers/dkim.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount, createContact } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { contactOf, eventsNamed } from './helpers.js'

let sink: SmtpSink
let env: ServerWithDns
let alpha: Account
let beta: Account
let dkim: DkimKey

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({
    config: { smtpUrl: sink.url, inboundSmtpPort: 0, inboundDomain: 'in.mailroom.test' },
  })
  alpha = await createAccount(env.server, 'Alpha')
  beta = await createAccount(env.server, 'Beta')
  await addVerifiedDomain(env.server, env.dns, alpha, 'alpha.example.com')
  await addVerifiedDomain(env.server, env.dns, beta, 'beta.example.com')
  await addVerifiedDomain(env.server, env.dns, alpha, 'shared.example.com')
  await addVerifiedDomain(env.server, env.dns, beta, 'shared.example.com')
  await addDomain(env.server, beta, 'pending.example.com')
  env.dns.set('sender.test', 'TXT', ['v=spf1 ip4:127.0.0.1 -all'])
  env.dns.set('_dmarc.sender.test', 'TXT', ['v=DMARC1; p=reject'])
  dkim = publishDkimKey(env.dns, 'sender.test', 's1')
})
afterAll(async () => {
  await env?.close()
  await sink?.close()
})
beforeEach(async () => {
  sink.reset()
  // Each test counts events from a clean slate; accounts, domains and contacts stay.
  await env.server.ctx.pool.query("DELETE FROM events WHERE name IN ('email.received', 'contact.unsubscribed')")
})

function deliver(mail: SendMailOptions) {
  const port = env.server.inbound?.port
  if (port === undefined) throw new Error('the inbound receiver is not running')
  return createTransport({ host: '127.0.0.1', port, name: 'client.sender.test' }).sendMail(mail)
}

const signed = () => ({ domainName: dkim.domainName, keySelector: dkim.selector, privateKey: dkim.privateKeyPem })

describe('mail to a verified domain', () => {
  it("becomes one email.received event with the spec's fields, in the owning project only", async () => {
    const info = await deliver({
      from: 'Alice Sender <alice@sender.test>',
      to: 'Support <support@alpha.example.com>',
      subject: 'Where is my order?',
      html: '<p>Order <b>42</b></p>',
      messageId: '<order-42@sender.test>',
      dkim: signed(),
    })
    expect(info.accepted).toEqual(['support@alpha.example.com'])

    const events = await eventsNamed(env.server, 'email.received')
    expect(events).toHaveLength(1)
    const [event] = events
    expect(event?.project_id).toBe(alpha.project.id)
    expect(event?.data).toEqual({
      messageId: 'order-42@sender.test',
      from: 'alice@sender.test',
      fromHeader: '"Alice Sender" <alice@sender.test>',
      to: 'support@alpha.example.com',
      subject: 'Where is my order?',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      recipients: ['support@alpha.example.com'],
      hasContent: true,
      body: expect.stringMatching(/^<p>Order <b>42<\/b><\/p>\s*$/),
      spamVerdict: 'DISABLED',
      virusVerdict: 'DISABLED',
      spfVerdict: 'PASS',
      dkimVerdict: 'PASS',
      dmarcVerdict: 'PASS',
      processingTimeMillis: expect.any(Number),
    })
    // The sender becomes an unsubscribed contact of that project only, as a new /v1/send recipient does.
    const contact = await contactOf(env.server, alpha.project.id, 'alice@sender.test')
    expect(contact).toEqual({ id: event?.contact_id, subscribed: false })
    expect(await contactOf(env.server, beta.project.id, 'alice@sender.test')).toBeUndefined()
  })

  it('keeps the formatting of the body but not its scripts, event handlers or javascript: links', async () => {
    await deliver({
      from: 'mallory@sender.test',
      to: 'support@alpha.example.com',
      subject: 'Look',
      html: '<p onclick="steal()">Hi <a href="javascript:steal()">here</a> <a href="https://example.org/x">there</a></p><script>steal()</script><img src="https://example.org/i.png" onerror="steal()">',
      messageId: '<look-1@sender.test>',
    })
    const [event] = await eventsNamed(env.server, 'email.received')
    expect(String(event?.data.body).trim()).toBe(
      '<p>Hi <a>here</a> <a href="https://example.org/x">there</a></p><img src="https://example.org/i.png" />',
    )
  })

  it("one message to two projects' domains gives each project one event listing only its own recipients", async () => {
    await deliver({
      envelope: {
        from: 'bounces+x@sender.test',
        to: ['support@alpha.example.com', 'sales@beta.example.com', 'hidden@alpha.example.com'],
      },
      raw: [
        'From: Carol <carol@sender.test>',
        'To: support@alpha.example.com, sales@beta.example.com',
        'Subject: Both of you',
        'Message-ID: <both-1@sender.test>',
        '',
        'Hello both',
        '',
      ].join('\r\n'),
    })
    const events = await eventsNamed(env.server, 'email.received')
    const byProject = new Map(events.map((event) => [event.project_id, event.data]))
    expect(events).toHaveLength(2)
    expect(byProject.get(alpha.project.id)).toMatchObject({
      from: 'bounces+x@sender.test',
      to: 'support@alpha.example.com',
      recipients: ['support@alpha.example.com', 'hidden@alpha.example.com'],
      subject: 'Both of you',
    })
    expect(byProject.get(beta.project.id)).toMatchObject({
      to: 'sales@beta.example.com',
      recipients: ['sales@beta.example.com'],
    })
    // The contact is the author (From header), not the envelope's bounce address.
    const carol = await contactOf(env.server, beta.project.id, 'carol@sender.test')
    expect(events.find((event) => event.project_id === beta.project.id)?.contact_id).toBe(carol?.id)
    expect(await contactOf(env.server, beta.project.id, 'bounces+x@sender.test')).toBeUndefined()
  })

  it("through the API a project sees its own received mail and never another project's", async () => {
    await deliver({
      from: 'judy@sender.test',
      to: 'support@alpha.example.com',
      subject: 'For alpha only',
      text: 'private',
      messageId: '<alpha-only@sender.test>',
    })
    const list = (account: Account) =>
      env.server.app.inject({ method: 'GET', url: '/events', headers: bearer(account.secretKey) })
    const own = await list(alpha)
    expect(own.statusCode).toBe(200)
    expect(own.body).toContain('alpha-only@sender.test')
    const other = await list(beta)
    expect(other.statusCode).toBe(200)
    expect(other.body).not.toContain('alpha-only@sender.test')
    expect(other.body).not.toContain('email.received')
  })

  it('a domain verified by two projects gives both the message', async () => {
    await deliver({ from: 'dave@sender.test', to: 'team@shared.example.com', subject: 'Shared', text: 'hi' })
    const events = await eventsNamed(env.server, 'email.received')
    expect(events.map((event) => event.project_id).sort()).toEqual([alpha.project.id, beta.project.id].sort())
  })

  it('recipient domains are matched without regard to case', async () => {
    // nodemailer lower-cases domains itself, so this asks the service directly.
    const address = 'Support@ALPHA.Example.COM'
    expect(await acceptsInboundRecipient(env.server.ctx, address)).toBe(true)
    const outcome = await receiveInboundMessage(env.server.ctx, 'smtp', {
      messageId: 'caps@sender.test',
      from: 'kim@sender.test',
      fromHeader: 'kim@sender.test',
      to: address,
      subject: 'Caps',
      timestamp: new Date().toISOString(),
      recipients: [address],
      hasContent: false,
      body: '',
      spamVerdict: 'DISABLED',
      virusVerdict: 'DISABLED',
      spfVerdict: 'GRAY',
      dkimVerdict: 'GRAY',
      dmarcVerdict: 'GRAY',
      processingTimeMillis: 1,
    })
    expect(outcome).toEqual({ projectIds: [alpha.project.id], unsubscribes: 0, complaints: 0 })
    const events = await eventsNamed(env.server, 'email.received')
    expect(events.map((event) => [event.project_id, event.data.recipients])).toEqual([[alpha.project.id, [address]]])
  })

  it('an existing contact keeps its subscription and gets the event', async () => {
    const erin = await createContact(env.server, alpha, { email: 'erin@sender.test', subscribed: true })
    await deliver({ from: 'erin@sender.test', to: 'support@alpha.example.com', subject: 'Hi', text: 'hello' })
    const [event] = await eventsNamed(env.server, 'email.received')
    expect(event?.contact_id).toBe(erin.id)
    expect((await contactOf(env.server, alpha.project.id, 'erin@sender.test'))?.subscribed).toBe(true)
  })

  it('a message delivered again (same Message-ID) is stored once', async () => {
    const mail = { from: 'frank@sender.test', to: 'support@alpha.example.com', subject: 'Retry', text: 'x' }
    await deliver({ ...mail, messageId: '<retry-1@sender.test>' })
    await deliver({ ...mail, messageId: '<retry-1@sender.test>' })
    expect(await eventsNamed(env.server, 'email.received')).toHaveLength(1)
  })

  it('an unsigned message from a host the domain does not authorise is reported as such', async () => {
    env.dns.set('spoofed.test', 'TXT', ['v=spf1 ip4:192.0.2.1 -all'])
    env.dns.set('_dmarc.spoofed.test', 'TXT', ['v=DMARC1; p=reject'])
    await deliver({ from: 'ceo@spoofed.test', to: 'support@alpha.example.com', subject: 'Wire', text: 'now' })
    const [event] = await eventsNamed(env.server, 'email.received')
    expect(event?.data).toMatchObject({ spfVerdict: 'FAIL', dkimVerdict: 'GRAY', dmarcVerdict: 'FAIL' })
  })
})

describe('mail nobody here owns', () => {
  async function storedCounts() {
    const { rows } = await env.server.ctx.pool.query<{ events: number; inbound: number }>(
      `SELECT (SELECT count(*)::int FROM events WHERE name = 'email.received') AS events,
              (SELECT count(*)::int FROM inbound_emails) AS inbound`,
    )
    return rows[0]
  }

  it('a recipient on an unverified or unknown domain is refused with 550 and nothing is stored', async () => {
    const before = await storedCounts()
    for (const to of ['someone@pending.example.com', 'someone@nowhere.test', 'relay@gmail.com']) {
      await expect(deliver({ from: 'gina@sender.test', to, subject: 'x', text: 'x' })).rejects.toMatchObject({
        responseCode: 550,
      })
    }
    expect(await storedCounts()).toEqual(before)
  })

  it('of a message to ours and a stranger, only ours is accepted and listed', async () => {
    const info = await deliver({
      from: 'hank@sender.test',
      to: ['support@alpha.example.com', 'x@pending.example.com'],
      subject: 'Mixed',
      text: 'x',
    })
    expect(info.rejected).toEqual(['x@pending.example.com'])
    const events = await eventsNamed(env.server, 'email.received')
    expect(events.map((event) => [event.project_id, event.data.recipients])).toEqual([
      [alpha.project.id, ['support@alpha.example.com']],
    ])
  })
})

describe('the mailto List-Unsubscribe address', () => {
  async function sendMarketing(to: string) {
    const template = await env.server.app.inject({
      method: 'POST',
      url: '/templates',
      headers: bearer(alpha.secretKey),
      payload: {
        name: 'News',
        subject: 'News',
        body: '<p>news</p>',
        from: 'news@alpha.example.com',
        type: 'MARKETING',
      },
    })
    expect(template.statusCode).toBe(201)
    const sent = await env.server.app.inject({
      method: 'POST',
      url: '/v1/send',
      headers: bearer(alpha.secretKey),
      payload: { to, template: template.json().id, subscribed: true },
    })
    expect(sent.statusCode).toBe(200)
    const [message] = await sink.waitForMessages(1)
    // Header lines unfolded, as a receiver reads them.
    return (message?.raw.toString() ?? '').split('\r\n\r\n')[0]?.replace(/\r\n[ \t]+/g, ' ') ?? ''
  }

  it('is offered beside the https form, and mail to it unsubscribes the contact once, without an email.received', async () => {
    const head = await sendMarketing('ivy@example.net')
    const header = /^List-Unsubscribe: (.*)$/m.exec(head)?.[1]
    expect(header).toMatch(
      /^<http:\/\/localhost:3000\/unsubscribe\/[\w-]+\.[\w-]+>, <mailto:unsubscribe\+[\w-]+\.[\w-]+@in\.mailroom\.test>$/,
    )
    expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m)
    const address = /<mailto:([^>]+)>/.exec(header ?? '')?.[1] ?? ''
    expect(address.split('@')[0]?.length).toBeLessThanOrEqual(64)
    expect((await contactOf(env.server, alpha.project.id, 'ivy@example.net'))?.subscribed).toBe(true)

    const unsubscribe = { from: 'ivy@example.net', to: address, subject: 'unsubscribe', text: 'unsubscribe' }
    expect((await deliver(unsubscribe)).accepted).toEqual([address])
    const ivy = await contactOf(env.server, alpha.project.id, 'ivy@example.net')
    expect(ivy?.subscribed).toBe(false)
    const unsubscribed = await eventsNamed(env.server, 'contact.unsubscribed')
    expect(unsubscribed).toEqual([
      { project_id: alpha.project.id, contact_id: ivy?.id, name: 'contact.unsubscribed', data: {} },
    ])
    expect(await eventsNamed(env.server, 'email.received')).toEqual([])

    // A second request (or a retry) finds the contact unsubscribed already: no second event.
    await deliver({ ...unsubscribe, messageId: '<again@example.net>' })
    expect(await eventsNamed(env.server, 'contact.unsubscribed')).toHaveLength(1)
  })

  it('still unsubscribes through the longer address of mail sent before the short mailbox tokens', async () => {
    await sendMarketing('jay@example.net')
    const jay = await contactOf(env.server, alpha.project.id, 'jay@example.net')
    const token = subscriptionToken(env.server.ctx.config.secret, 'unsubscribe', {
      projectId: alpha.project.id,
      contactId: jay?.id ?? '',
    })
    const address = `unsubscribe+${token}@in.mailroom.test`
    expect((await deliver({ from: 'jay@example.net', to: address, subject: 'u', text: 'u' })).accepted).toEqual([
      address,
    ])
    expect((await contactOf(env.server, alpha.project.id, 'jay@example.net'))?.subscribed).toBe(false)
  })

  it('refuses an unsubscribe mailbox whose token we did not sign', async () => {
    const forged = 'unsubscribe+bm90LWEtdG9rZW4.c2lnbmF0dXJl@in.mailroom.test'
    await expect(deliver({ from: 'x@example.net', to: forged, subject: 'u', text: 'u' })).rejects.toMatchObject({
      responseCode: 550,
    })
  })
})
