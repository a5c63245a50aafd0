import { readFileSync } from 'node:fs'
import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { contacts, events, pendingProviderReports, suppressions } from '../../src/db/schema/index.js'
import type { SnsMessage } from '../../src/mail/aws/sns.js'
import { expireFeedbackReceiptsJob } from '../../src/modules/feedback/jobs.js'
import { enqueue, eventually, findEmails, testEmail } from '../helpers/emails.js'
import { type Account, createAccount, createContact } from '../helpers/factories.js'
import { type HttpReceiver, startHttpReceiver } from '../helpers/http-receiver.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createSnsSigner } from '../helpers/sns-signer.js'

const signer = createSnsSigner('webhooks')
const forger = createSnsSigner('forger')

/** An SES sample from the docs (test/fixtures/ses) about the email SES knows as `providerMessageId`. */
function sesEvent(name: string, providerMessageId: string): Record<string, unknown> {
  const event = JSON.parse(readFileSync(new URL(`../fixtures/ses/${name}.json`, import.meta.url), 'utf8'))
  event.mail.messageId = providerMessageId
  return event
}

describe('POST /webhooks/email-provider', () => {
  let server: TestServer
  let receiver: HttpReceiver
  let account: Account
  let other: Account

  beforeAll(async () => {
    receiver = await startHttpReceiver()
    const receiverOrigin = new URL(receiver.url).origin
    server = await startTestServer({
      config: { mailTransport: 'capture' },
      // Amazon's certificate rules, with the test certificate; subscriptions confirmed against the local receiver.
      snsTrust: { ...signer.trust, isTrustedSubscribeUrl: (url) => url.origin === receiverOrigin },
    })
    account = await createAccount(server)
    other = await createAccount(server, 'Other project')
  })
  afterAll(async () => {
    await server.close()
    await receiver.close()
  })

  /** A subscribed contact and one email to it, handed to the (capture) transport. */
  async function sentEmail(owner = account) {
    const contact = await createContact(server, owner, { subscribed: true })
    const [emailId = ''] = await enqueue(server, owner.project.id, [
      testEmail({ to: { email: contact.email }, contactId: contact.id }),
    ])
    await vi.waitFor(async () => expect((await findEmails(server, [emailId]))[0]?.status).toBe('SENT'), eventually)
    const [email] = await findEmails(server, [emailId])
    if (!email?.providerMessageId) throw new Error('no provider message id')
    return { contact, emailId, providerMessageId: email.providerMessageId }
  }

  function post(body: unknown, contentType = 'text/plain; charset=UTF-8') {
    return fetch(`${server.url}/webhooks/email-provider`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-amz-sns-message-type': 'Notification' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
  }

  async function deliver(envelope: SnsMessage) {
    const response = await post(envelope)
    expect(response.status).toBe(200)
    return ((await response.json()) as { data: { outcome: string } }).data.outcome
  }

  const email = async (id: string) => (await findEmails(server, [id]))[0]

  async function feedbackEvents(emailId: string) {
    const rows = await server.ctx.db
      .select({ name: events.name, data: events.data, projectId: events.projectId })
      .from(events)
      .orderBy(events.createdAt)
    return rows.filter((row) => row.data.emailId === emailId && row.name !== 'email.sent')
  }

  const unsubscriptions = (contactId: string) =>
    server.ctx.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.contactId, contactId), eq(events.name, 'contact.unsubscribed')))

  const contactRow = async (id: string) => (await server.ctx.db.select().from(contacts).where(eq(contacts.id, id)))[0]

  async function eventCount() {
    const [row] = await server.ctx.db.select({ n: count() }).from(events)
    return row?.n ?? 0
  }

  it('applies a Delivery in both forms, and a redelivered notification once', async () => {
    const first = await sentEmail()
    const envelope = signer.notification(sesEvent('event-delivery', first.providerMessageId))
    expect(await deliver(envelope)).toBe('applied')
    expect(await deliver(envelope)).toBe('duplicate')
    expect(await email(first.emailId)).toMatchObject({
      status: 'DELIVERED',
      deliveredAt: new Date('2016-10-19T23:21:04.133Z'),
    })
    const emitted = await feedbackEvents(first.emailId)
    expect(emitted.map((event) => event.name)).toEqual(['email.delivery'])
    expect(emitted[0]?.data).toMatchObject({
      emailId: first.emailId,
      messageId: first.providerMessageId,
      deliveredAt: '2016-10-19T23:21:04.133Z',
    })

    const second = await sentEmail()
    expect(await deliver(signer.notification(sesEvent('notification-delivery', second.providerMessageId)))).toBe(
      'applied',
    )
    expect((await email(second.emailId))?.status).toBe('DELIVERED')
    expect((await feedbackEvents(second.emailId)).map((event) => event.name)).toEqual(['email.delivery'])
  })

  it.each([['event-bounce-permanent'], ['notification-bounce']])(
    'a permanent bounce (%s) bounces the email, unsubscribes with reason bounce and suppresses',
    async (fixture) => {
      const sent = await sentEmail()
      const envelope = signer.notification(sesEvent(fixture, sent.providerMessageId))
      expect(await deliver(envelope)).toBe('applied')
      expect(await deliver(envelope)).toBe('duplicate')

      expect((await email(sent.emailId))?.status).toBe('BOUNCED')
      const emitted = await feedbackEvents(sent.emailId)
      expect(emitted.map((event) => [event.name, event.data.bounceType])).toEqual([['email.bounce', 'Permanent']])
      expect(emitted[0]?.data.bouncedAt).toEqual(expect.any(String))
      expect(await contactRow(sent.contact.id)).toMatchObject({ subscribed: false })
      expect(await unsubscriptions(sent.contact.id)).toEqual([{ data: { reason: 'bounce' } }])
      const suppressed = await server.ctx.db
        .select()
        .from(suppressions)
        .where(and(eq(suppressions.projectId, account.project.id), eq(suppressions.email, sent.contact.email)))
      expect(suppressed).toEqual([expect.objectContaining({ reason: 'bounce', emailId: sent.emailId })])
    },
  )

  it('a transient bounce is recorded only: status unchanged, contact still subscribed', async () => {
    const sent = await sentEmail()
    expect(await deliver(signer.notification(sesEvent('event-bounce-transient', sent.providerMessageId)))).toBe(
      'applied',
    )
    expect((await email(sent.emailId))?.status).toBe('SENT')
    expect((await feedbackEvents(sent.emailId)).map((event) => event.data)).toEqual([
      expect.objectContaining({ bounceType: 'Transient', transientBounce: true }),
    ])
    expect(await contactRow(sent.contact.id)).toMatchObject({ subscribed: true })
    expect(await unsubscriptions(sent.contact.id)).toEqual([])
  })

  it.each([['event-complaint'], ['notification-complaint']])(
    'a complaint (%s) unsubscribes with reason complaint; a late Delivery does not undo it',
    async (fixture) => {
      const sent = await sentEmail()
      expect(await deliver(signer.notification(sesEvent(fixture, sent.providerMessageId)))).toBe('applied')
      expect(await deliver(signer.notification(sesEvent('event-delivery', sent.providerMessageId)))).toBe('applied')

      expect((await email(sent.emailId))?.status).toBe('COMPLAINED')
      expect((await feedbackEvents(sent.emailId)).map((event) => event.name)).toEqual([
        'email.complaint',
        'email.delivery',
      ])
      expect(await contactRow(sent.contact.id)).toMatchObject({ subscribed: false })
      expect(await unsubscriptions(sent.contact.id)).toEqual([{ data: { reason: 'complaint' } }])
    },
  )

  it('an Open and a Click move the status up and carry the link', async () => {
    const sent = await sentEmail()
    expect(await deliver(signer.notification(sesEvent('event-open', sent.providerMessageId)))).toBe('applied')
    expect((await email(sent.emailId))?.status).toBe('OPENED')
    expect(await deliver(signer.notification(sesEvent('event-click', sent.providerMessageId)))).toBe('applied')
    expect(await email(sent.emailId)).toMatchObject({ status: 'CLICKED', opens: 1, clicks: 1 })
    const emitted = await feedbackEvents(sent.emailId)
    expect(emitted.map((event) => event.name)).toEqual(['email.open', 'email.click'])
    expect(emitted[1]?.data).toMatchObject({
      link: 'http://docs.aws.amazon.com/ses/latest/DeveloperGuide/send-email-smtp.html',
      clicks: 1,
      isFirstClick: true,
    })
  })

  it('a Reject fails the email with the reason; a DeliveryDelay and a Send change nothing', async () => {
    const rejected = await sentEmail()
    expect(await deliver(signer.notification(sesEvent('event-reject', rejected.providerMessageId)))).toBe('applied')
    expect(await email(rejected.emailId)).toMatchObject({
      status: 'FAILED',
      lastError: 'rejected by the provider: Bad content',
    })
    expect(await feedbackEvents(rejected.emailId)).toEqual([])

    const delayed = await sentEmail()
    const before = await eventCount()
    expect(await deliver(signer.notification(sesEvent('event-delivery-delay', delayed.providerMessageId)))).toBe(
      'ignored',
    )
    expect(await deliver(signer.notification(sesEvent('event-send', delayed.providerMessageId)))).toBe('ignored')
    expect(await deliver(signer.notification('not json at all'))).toBe('ignored')
    expect(await email(delayed.emailId)).toMatchObject({ status: 'SENT', lastError: null })
    expect(await eventCount()).toBe(before)
  })

  it('an unknown message id answers 200, changes nothing and is held for when the id lands', async () => {
    const before = await eventCount()
    expect(await deliver(signer.notification(sesEvent('event-complaint', 'no-such-message')))).toBe('pending')
    expect(await eventCount()).toBe(before)
    const held = await server.ctx.db
      .select({ provider: pendingProviderReports.provider })
      .from(pendingProviderReports)
      .where(eq(pendingProviderReports.providerMessageId, 'no-such-message'))
    expect(held).toEqual([{ provider: 'ses' }])
  })

  it('refuses forged, foreign-certificate and unsigned messages with 403, changing nothing', async () => {
    const sent = await sentEmail()
    const complaint = sesEvent('event-complaint', sent.providerMessageId)
    const genuine = signer.notification(complaint)
    const forgeries: unknown[] = [
      // Signed with another key, claiming the trusted certificate.
      signer.notification(complaint, { MessageId: genuine.MessageId }, { key: forger.privateKey }),
      // Signed correctly, then altered.
      { ...genuine, Message: JSON.stringify(sesEvent('event-bounce-permanent', sent.providerMessageId)) },
      // A certificate served from somewhere other than SNS.
      signer.notification(complaint, {
        MessageId: genuine.MessageId,
        SigningCertURL: 'https://attacker.example.com/SimpleNotificationService-webhooks.pem',
      }),
      signer.notification(complaint, {
        MessageId: genuine.MessageId,
        SigningCertURL: 'http://sns.us-east-1.amazonaws.com/SimpleNotificationService-webhooks.pem',
      }),
      // Unsigned.
      (({ Signature: _signature, ...unsigned }) => unsigned)(genuine),
      { ...genuine, Signature: '' },
      complaint,
    ]
    const before = await eventCount()
    for (const forged of forgeries) {
      const response = await post(forged)
      expect(response.status).toBe(403)
      expect(await response.json()).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } })
    }
    expect((await email(sent.emailId))?.status).toBe('SENT')
    expect(await contactRow(sent.contact.id)).toMatchObject({ subscribed: true })
    expect(await eventCount()).toBe(before)
    // The refused copies did not use up the notification id: the genuine one still applies.
    expect(await deliver(genuine)).toBe('applied')
    expect((await email(sent.emailId))?.status).toBe('COMPLAINED')
  })

  it('answers 400 for a body that is not JSON', async () => {
    const response = await post('{"Type": ')
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ success: false, error: { code: 'INVALID_JSON' } })
  })

  it('accepts application/json too', async () => {
    const sent = await sentEmail()
    const response = await post(
      signer.notification(sesEvent('event-delivery', sent.providerMessageId)),
      'application/json',
    )
    expect(response.status).toBe(200)
    expect((await email(sent.emailId))?.status).toBe('DELIVERED')
  })

  it('touches only the email the provider id names, and its events land on its own project', async () => {
    const mine = await sentEmail(account)
    const theirs = await sentEmail(other)
    expect(await deliver(signer.notification(sesEvent('event-complaint', theirs.providerMessageId)))).toBe('applied')

    expect((await email(mine.emailId))?.status).toBe('SENT')
    expect(await contactRow(mine.contact.id)).toMatchObject({ subscribed: true })
    expect((await email(theirs.emailId))?.status).toBe('COMPLAINED')
    expect((await feedbackEvents(theirs.emailId)).map((event) => event.projectId)).toEqual([other.project.id])
    const [unsubscribed] = await server.ctx.db
      .select({ projectId: events.projectId })
      .from(events)
      .where(and(eq(events.contactId, theirs.contact.id), eq(events.name, 'contact.unsubscribed')))
    expect(unsubscribed?.projectId).toBe(other.project.id)
    const suppressedHere = await server.ctx.db
      .select()
      .from(suppressions)
      .where(and(eq(suppressions.projectId, account.project.id), eq(suppressions.email, theirs.contact.email)))
    expect(suppressedHere).toEqual([])
  })

  it('acknowledges a malformed SES inbound mail notification without touching anything', async () => {
    const before = await eventCount()
    const inbound = { notificationType: 'Received', mail: { messageId: 'inbound-1' }, receipt: {} }
    expect(await deliver(signer.notification(inbound))).toBe('inbound')
    expect(await eventCount()).toBe(before)
  })

  it('a daily job forgets notification ids older than a week', async () => {
    const sent = await sentEmail()
    const old = signer.notification(sesEvent('event-open', sent.providerMessageId))
    const fresh = signer.notification(sesEvent('event-open', sent.providerMessageId))
    expect(await deliver(old)).toBe('applied')
    expect(await deliver(fresh)).toBe('applied')
    await server.ctx.pool.query("UPDATE feedback_receipts SET received_at = now() - interval '8 days' WHERE id = $1", [
      `sns:${old.MessageId}`,
    ])
    await server.ctx.boss.send(expireFeedbackReceiptsJob.name, {})
    const receipts = async () =>
      (
        await server.ctx.pool.query('SELECT id FROM feedback_receipts WHERE id = ANY($1)', [
          [`sns:${old.MessageId}`, `sns:${fresh.MessageId}`],
        ])
      ).rows.map((row) => row.id)
    await vi.waitFor(async () => expect(await receipts()).toEqual([`sns:${fresh.MessageId}`]), eventually)
  })

  const dayMs = 24 * 3_600_000
  const receiptOf = async (envelope: SnsMessage) =>
    (await server.ctx.pool.query('SELECT id FROM feedback_receipts WHERE id = $1', [`sns:${envelope.MessageId}`])).rows
  const refusal = (message: string) => ({
    success: false,
    error: { code: 'FORBIDDEN', message, statusCode: 403, requestId: expect.any(String) },
    timestamp: expect.any(String),
  })

  it('refuses a captured notification replayed after its receipt expired, changing nothing', async () => {
    const sent = await sentEmail()
    const envelope = signer.notification(sesEvent('event-open', sent.providerMessageId))
    expect(await deliver(envelope)).toBe('applied')
    const applied = await feedbackEvents(sent.emailId)
    try {
      // Eight days on: the daily job has dropped the receipt, and the same signed message arrives again.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 8 * dayMs })
      await expireFeedbackReceiptsJob.handle(server.ctx, [{}])
      expect(await receiptOf(envelope)).toEqual([])
      const replay = await post(envelope)
      expect(replay.status).toBe(403)
      expect(await replay.json()).toEqual(refusal('SNS message is too old to be accepted'))
    } finally {
      vi.useRealTimers()
    }
    expect(await feedbackEvents(sent.emailId)).toEqual(applied)
    expect(await email(sent.emailId)).toMatchObject({ status: 'OPENED' })
    expect(await receiptOf(envelope)).toEqual([])
  })

  it('refuses signed messages older than the receipts are kept or ahead of the clock skew, recording nothing', async () => {
    const sent = await sentEmail()
    const open = sesEvent('event-open', sent.providerMessageId)
    const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString()
    const refused: [SnsMessage, string][] = [
      [signer.notification(open, { Timestamp: at(-7 * dayMs) }), 'SNS message is too old to be accepted'],
      [signer.notification(open, { Timestamp: at(10 * 60_000) }), 'SNS message Timestamp is in the future'],
      [signer.notification(open, { Timestamp: 'yesterday' }), 'SNS message Timestamp is not a valid time'],
    ]
    const before = await eventCount()
    for (const [envelope, message] of refused) {
      const response = await post(envelope)
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual(refusal(message))
      expect(await receiptOf(envelope)).toEqual([])
    }
    expect(await eventCount()).toBe(before)
    expect((await email(sent.emailId))?.status).toBe('SENT')

    // Within the retention, and a few minutes ahead (another clock): taken.
    expect(await deliver(signer.notification(open, { Timestamp: at(-6 * dayMs) }))).toBe('applied')
    expect(await deliver(signer.notification(open, { Timestamp: at(4 * 60_000) }))).toBe('applied')
    expect(await email(sent.emailId)).toMatchObject({ status: 'OPENED', opens: 2 })
  })

  describe('subscription confirmation', () => {
    function confirmation(subscribeUrl: string) {
      return signer.notification('You have chosen to subscribe to the topic.', {
        Type: 'SubscriptionConfirmation',
        Subject: undefined,
        SubscribeURL: subscribeUrl,
        Token: 'token-123',
      })
    }

    it('confirms by fetching SubscribeURL on a trusted host', async () => {
      receiver.reset()
      const url = `${receiver.url}/?Action=ConfirmSubscription&Token=token-123`
      expect(await deliver(confirmation(url))).toBe('confirmed')
      const [request] = await receiver.waitForRequests(1)
      expect(request).toMatchObject({ method: 'GET', url: '/?Action=ConfirmSubscription&Token=token-123' })
    })

    it('never fetches a SubscribeURL elsewhere', async () => {
      receiver.reset()
      const response = await post(confirmation('http://169.254.169.254/latest/meta-data/'))
      expect(response.status).toBe(400)
      expect(receiver.requests).toEqual([])
    })

    it('answers 503 when the confirmation fails, so SNS sends it again', async () => {
      receiver.reset()
      receiver.respondWith(() => ({ status: 500 }))
      const response = await post(confirmation(`${receiver.url}/?Action=ConfirmSubscription`))
      expect(response.status).toBe(503)
      receiver.reset()
    })

    it('refuses a confirmation with a bad signature', async () => {
      receiver.reset()
      const forged = { ...confirmation(`${receiver.url}/`), Token: 'other' }
      expect((await post(forged)).status).toBe(403)
      expect(receiver.requests).toEqual([])
    })
  })
})

describe('SNS_TOPIC_ARNS and the rate limit', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({
      worker: false,
      snsTrust: signer.trust,
      config: { snsTopicArns: ['arn:aws:sns:eu-west-1:123456789012:mailroom'], rateLimitPerMinute: 2 },
    })
  })
  afterAll(() => server.close())

  const post = (envelope: SnsMessage) =>
    server.app.inject({
      method: 'POST',
      url: '/webhooks/email-provider',
      headers: { 'content-type': 'text/plain; charset=UTF-8' },
      payload: JSON.stringify(envelope),
    })

  it('refuses correctly signed messages from other topics', async () => {
    const event = sesEvent('event-delivery', 'unknown')
    expect((await post(signer.notification(event))).statusCode).toBe(403)
    const allowed = await post(signer.notification(event, { TopicArn: 'arn:aws:sns:eu-west-1:123456789012:mailroom' }))
    expect(allowed.statusCode).toBe(200)
    expect(allowed.json()).toEqual({ success: true, data: { outcome: 'pending' } })
  })

  it('does not rate-limit SNS: a burst of feedback is all taken', async () => {
    const topic = { TopicArn: 'arn:aws:sns:eu-west-1:123456789012:mailroom' }
    for (let index = 0; index < 5; index += 1) {
      expect((await post(signer.notification(sesEvent('event-open', `burst-${index}`), topic))).statusCode).toBe(200)
    }
  })
})
