import { readFileSync } from 'node:fs'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { contacts, events, pendingProviderReports, suppressions } from '../../src/db/schema/index.js'
import { settlePendingReportsJob } from '../../src/modules/feedback/pending-jobs.js'
import { holdProviderReport } from '../../src/modules/feedback/pending-reports.js'
import { enqueue, eventually, findEmails, testEmail } from '../helpers/emails.js'
import { waitForDispatch } from '../helpers/events.js'
import { type Account, callAs, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createSnsSigner } from '../helpers/sns-signer.js'

const signer = createSnsSigner('pending-reports')

/** An SES sample from the docs (test/fixtures/ses) about the email SES knows as `providerMessageId`. */
function sesEvent(name: string, providerMessageId: string): Record<string, unknown> {
  const event = JSON.parse(readFileSync(new URL(`../fixtures/ses/${name}.json`, import.meta.url), 'utf8'))
  event.mail.messageId = providerMessageId
  return event
}

// Two processes on one database: the API that receives SNS, and (started later) the worker that sends. Until
// the worker runs, the email has no provider message id, as in the moment between SES's answer and the
// outcome recorder's write. The capture transport's provider id is the email's own Message-ID.
describe('provider reports that arrive before the provider message id', () => {
  let api: TestServer
  let worker: TestServer | undefined
  let account: Account

  beforeAll(async () => {
    api = await startTestServer({ worker: false, config: { mailTransport: 'capture' }, snsTrust: signer.trust })
    account = await createAccount(api)
  })
  afterAll(async () => {
    await worker?.close()
    await api.close()
  })

  async function post(event: Record<string, unknown>, notificationId?: string) {
    const envelope = signer.notification(event, notificationId ? { MessageId: notificationId } : {})
    const response = await fetch(`${api.url}/webhooks/email-provider`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' },
      body: JSON.stringify(envelope),
    })
    expect(response.status).toBe(200)
    return { envelope, outcome: ((await response.json()) as { data: { outcome: string } }).data.outcome }
  }

  async function startWorker(): Promise<TestServer> {
    worker ??= await startTestServer({ databaseUrl: api.config.databaseUrl, config: { mailTransport: 'capture' } })
    return worker
  }

  const emailEvents = async (emailId: string) =>
    (await api.ctx.db.select({ name: events.name, data: events.data }).from(events).orderBy(events.createdAt)).filter(
      (row) => row.data.emailId === emailId,
    )

  const held = (providerMessageId: string) =>
    api.ctx.db
      .select({ provider: pendingProviderReports.provider })
      .from(pendingProviderReports)
      .where(eq(pendingProviderReports.providerMessageId, providerMessageId))

  it('a bounce and a delivery are held, then applied once when the worker records the id', async () => {
    const contact = await createContact(api, account, { subscribed: true })
    const [emailId = ''] = await enqueue(api, account.project.id, [
      testEmail({ to: { email: contact.email }, contactId: contact.id }),
    ])
    const [queued] = await findEmails(api, [emailId])
    const providerMessageId = queued?.messageId ?? ''
    expect(queued).toMatchObject({ status: 'QUEUED', providerMessageId: null })

    const delivery = await post(sesEvent('event-delivery', providerMessageId))
    const bounce = await post(sesEvent('event-bounce-permanent', providerMessageId))
    expect([delivery.outcome, bounce.outcome]).toEqual(['pending', 'pending'])
    // SNS delivers again: the receipt makes the copy a duplicate, so nothing is held twice.
    const again = await fetch(`${api.url}/webhooks/email-provider`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=UTF-8' },
      body: JSON.stringify(bounce.envelope),
    })
    expect(((await again.json()) as { data: { outcome: string } }).data.outcome).toBe('duplicate')
    expect(await held(providerMessageId)).toEqual([{ provider: 'ses' }, { provider: 'ses' }])
    expect((await findEmails(api, [emailId]))[0]?.status).toBe('QUEUED')
    expect(await emailEvents(emailId)).toEqual([])

    await startWorker()
    await vi.waitFor(async () => expect((await findEmails(api, [emailId]))[0]?.status).toBe('BOUNCED'), eventually)

    expect((await findEmails(api, [emailId]))[0]).toMatchObject({
      providerMessageId,
      deliveredAt: expect.any(Date),
      bouncedAt: expect.any(Date),
    })
    expect(await held(providerMessageId)).toEqual([])
    expect((await emailEvents(emailId)).map((event) => [event.name, event.data.bounceType ?? null])).toEqual([
      ['email.sent', null],
      ['email.delivery', null],
      ['email.bounce', 'Permanent'],
    ])
    const [row] = await api.ctx.db.select().from(contacts).where(eq(contacts.id, contact.id))
    expect(row).toMatchObject({ subscribed: false })
    const unsubscribed = await api.ctx.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.contactId, contact.id), eq(events.name, 'contact.unsubscribed')))
    expect(unsubscribed).toEqual([{ data: { reason: 'bounce' } }])
    const suppressed = await api.ctx.db
      .select({ reason: suppressions.reason, emailId: suppressions.emailId })
      .from(suppressions)
      .where(and(eq(suppressions.projectId, account.project.id), eq(suppressions.email, contact.email)))
    expect(suppressed).toEqual([{ reason: 'bounce', emailId }])

    // The sweep finds nothing left to apply: exactly once.
    await settlePendingReportsJob.handle(api.ctx, [{}])
    expect((await emailEvents(emailId)).map((event) => event.name)).toEqual([
      'email.sent',
      'email.delivery',
      'email.bounce',
    ])
    await waitForDispatch(api, account.project.id)
    const totals = (await callAs(api, account)('GET', '/analytics/timeseries')).json().totals
    expect(totals).toMatchObject({ sent: 1, delivered: 1, bounced: 1 })
    const stats = (await callAs(api, account)('GET', '/activity/stats')).json()
    expect(stats).toMatchObject({ totalEmailsSent: 1, totalEmailsDelivered: 1, totalEmailsBounced: 1 })
  })

  it('the sweep applies a report held while the recorder was writing its id, and expires stale ones after a day', async () => {
    const running = await startWorker()
    const contact = await createContact(api, account, { subscribed: true })
    const [emailId = ''] = await enqueue(running, account.project.id, [
      testEmail({ to: { email: contact.email }, contactId: contact.id }),
    ])
    await vi.waitFor(async () => expect((await findEmails(api, [emailId]))[0]?.status).toBe('SENT'), eventually)
    const providerMessageId = (await findEmails(api, [emailId]))[0]?.providerMessageId ?? ''
    // What the race leaves behind: the report held by a transaction that could not yet see the id.
    await api.ctx.db.transaction((tx) =>
      holdProviderReport(tx, {
        provider: 'ses',
        providerMessageId,
        payload: sesEvent('event-complaint', providerMessageId),
      }),
    )
    await api.ctx.db.transaction((tx) =>
      holdProviderReport(tx, { provider: 'ses', providerMessageId: 'never-lands', payload: {} }),
    )
    await api.ctx.db.transaction((tx) =>
      holdProviderReport(tx, { provider: 'ses', providerMessageId: 'no-such-id-old', payload: {} }),
    )
    await api.ctx.pool.query(
      `UPDATE pending_provider_reports SET received_at = now() - interval '25 hours'
       WHERE provider_message_id = 'no-such-id-old'`,
    )

    await settlePendingReportsJob.handle(api.ctx, [{}])
    expect((await findEmails(api, [emailId]))[0]?.status).toBe('COMPLAINED')
    expect(
      (await emailEvents(emailId)).filter((event) => event.name === 'email.complaint').map((event) => event.name),
    ).toEqual(['email.complaint'])
    expect(await held(providerMessageId)).toEqual([])
    expect(await held('no-such-id-old')).toEqual([])
    expect(await held('never-lands')).toEqual([{ provider: 'ses' }])
  })

  it('SES opens and clicks are classified like our own: Apple’s proxy is a machine', async () => {
    const running = await startWorker()
    const [emailId = ''] = await enqueue(running, account.project.id, [testEmail()])
    await vi.waitFor(async () => expect((await findEmails(api, [emailId]))[0]?.status).toBe('SENT'), eventually)
    const providerMessageId = (await findEmails(api, [emailId]))[0]?.providerMessageId ?? ''
    const open = sesEvent('event-open', providerMessageId)
    Object.assign(open.open as object, { userAgent: 'Mozilla/5.0', ipAddress: '17.58.63.52' })
    expect((await post(open)).outcome).toBe('applied')
    expect((await emailEvents(emailId)).map((event) => [event.name, event.data.reason ?? null])).toEqual([
      ['email.sent', null],
      ['email.machine_open', 'apple_mpp'],
    ])
    expect((await findEmails(api, [emailId]))[0]).toMatchObject({ status: 'SENT', opens: 0, machineOpens: 1 })
  })
})
