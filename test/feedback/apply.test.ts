import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { contacts, events, suppressions } from '../../src/db/schema/index.js'
import { applyEmailFeedback, type EmailFeedback, type FeedbackTarget } from '../../src/modules/feedback/service.js'
import { enqueue, eventually, findEmails, testEmail } from '../helpers/emails.js'
import { type Account, type ContactJson, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

describe('applying delivery feedback to an email', () => {
  let server: TestServer
  let account: Account

  beforeAll(async () => {
    server = await startTestServer({ config: { mailTransport: 'capture' } })
    account = await createAccount(server)
  })
  afterAll(() => server.close())

  /** A subscribed contact and one email to it, handed to the (capture) transport. */
  async function sentEmail(): Promise<{ contact: ContactJson; emailId: string }> {
    const contact = await createContact(server, account, { subscribed: true })
    const [emailId] = await enqueue(server, account.project.id, [
      testEmail({ to: { email: contact.email }, contactId: contact.id }),
    ])
    if (!emailId) throw new Error('nothing enqueued')
    await vi.waitFor(async () => expect((await findEmails(server, [emailId]))[0]?.status).toBe('SENT'), eventually)
    return { contact, emailId }
  }

  const apply = (target: FeedbackTarget, feedback: EmailFeedback) =>
    server.ctx.db.transaction((tx) => applyEmailFeedback(tx, target, feedback))

  async function emailEvents(emailId: string) {
    const rows = await server.ctx.db
      .select({ name: events.name, data: events.data, contactId: events.contactId })
      .from(events)
      .where(eq(events.projectId, account.project.id))
      .orderBy(events.createdAt)
    return rows.filter((row) => row.data.emailId === emailId && row.name !== 'email.sent')
  }

  const contactEvents = (contactId: string) =>
    server.ctx.db
      .select({ name: events.name, data: events.data })
      .from(events)
      .where(and(eq(events.contactId, contactId), eq(events.name, 'contact.unsubscribed')))

  const contactRow = async (id: string) => (await server.ctx.db.select().from(contacts).where(eq(contacts.id, id)))[0]

  const at = new Date('2026-11-20T10:00:00Z')

  it('counts every open and click with running totals, and moves the status up only', async () => {
    const { emailId } = await sentEmail()
    await apply({ emailId }, { kind: 'delivery', at })
    await apply({ emailId }, { kind: 'open', at: new Date(at.getTime() + 1_000) })
    await apply({ emailId }, { kind: 'open', at: new Date(at.getTime() + 2_000) })
    // A minute after delivery: a click within seconds of it is a link scanner's (test/opens-clicks/machine.test.ts).
    await apply({ emailId }, { kind: 'click', at: new Date(at.getTime() + 60_000), link: 'https://example.org/a' })
    // A delivery reported again, late: no second event, no downgrade.
    await apply({ emailId }, { kind: 'delivery', at: new Date(at.getTime() + 61_000) })

    const [email] = await findEmails(server, [emailId])
    expect(email).toMatchObject({ status: 'CLICKED', opens: 2, clicks: 1, deliveredAt: at })
    expect(email?.openedAt?.toISOString()).toBe('2026-11-20T10:00:01.000Z')

    const emitted = await emailEvents(emailId)
    expect(emitted.map((event) => event.name)).toEqual(['email.delivery', 'email.open', 'email.open', 'email.click'])
    expect(emitted[0]?.data).toMatchObject({
      emailId,
      subject: 'Hello',
      from: 'hello@mail.example.test',
      sourceType: 'TRANSACTIONAL',
      templateId: null,
      campaignId: null,
      deliveredAt: at.toISOString(),
    })
    expect(emitted[1]?.data).toMatchObject({ opens: 1, isFirstOpen: true, openedAt: '2026-11-20T10:00:01.000Z' })
    expect(emitted[2]?.data).toMatchObject({ opens: 2, isFirstOpen: false, openedAt: '2026-11-20T10:00:01.000Z' })
    expect(emitted[3]?.data).toMatchObject({ link: 'https://example.org/a', clicks: 1, isFirstClick: true })
  })

  it('a complaint wins over everything after it, unsubscribes with reason complaint and suppresses, once', async () => {
    const { contact, emailId } = await sentEmail()
    await apply({ emailId }, { kind: 'complaint', at })
    await apply({ emailId }, { kind: 'complaint', at })
    await apply({ emailId }, { kind: 'delivery', at })
    await apply({ emailId }, { kind: 'open', at })

    expect((await findEmails(server, [emailId]))[0]).toMatchObject({ status: 'COMPLAINED', complainedAt: at })
    expect((await emailEvents(emailId)).map((event) => event.name)).toEqual([
      'email.complaint',
      'email.delivery',
      'email.open',
    ])
    expect(await contactRow(contact.id)).toMatchObject({ subscribed: false })
    expect(await contactEvents(contact.id)).toEqual([{ name: 'contact.unsubscribed', data: { reason: 'complaint' } }])
    const suppressed = await server.ctx.db
      .select()
      .from(suppressions)
      .where(eq(suppressions.projectId, account.project.id))
    expect(suppressed).toContainEqual(expect.objectContaining({ email: contact.email, reason: 'complaint', emailId }))
  })

  it('a permanent bounce unsubscribes with reason bounce; a transient one is recorded only', async () => {
    const soft = await sentEmail()
    await apply({ emailId: soft.emailId }, { kind: 'bounce', at, bounceType: 'Transient' })
    expect((await findEmails(server, [soft.emailId]))[0]).toMatchObject({ status: 'SENT', bouncedAt: null })
    expect((await emailEvents(soft.emailId)).map((event) => event.data)).toEqual([
      expect.objectContaining({ bounceType: 'Transient', transientBounce: true }),
    ])
    expect(await contactRow(soft.contact.id)).toMatchObject({ subscribed: true })

    const hard = await sentEmail()
    await apply({ emailId: hard.emailId }, { kind: 'delivery', at })
    await apply({ emailId: hard.emailId }, { kind: 'bounce', at, bounceType: 'Permanent' })
    expect((await findEmails(server, [hard.emailId]))[0]).toMatchObject({ status: 'BOUNCED', bouncedAt: at })
    expect((await emailEvents(hard.emailId)).at(-1)?.data).toMatchObject({
      bounceType: 'Permanent',
      bouncedAt: at.toISOString(),
    })
    expect(await contactRow(hard.contact.id)).toMatchObject({ subscribed: false })
    expect(await contactEvents(hard.contact.id)).toEqual([{ name: 'contact.unsubscribed', data: { reason: 'bounce' } }])
  })

  it('finds the email by the provider message id, and answers undefined for an unknown one', async () => {
    const { emailId } = await sentEmail()
    const [email] = await findEmails(server, [emailId])
    if (!email?.providerMessageId) throw new Error('no provider message id')
    const applied = await apply({ providerMessageId: email.providerMessageId }, { kind: 'delivery', at })
    expect(applied).toEqual({
      emailId,
      projectId: account.project.id,
      status: 'DELIVERED',
      emitted: 'email.delivery',
    })
    expect(await apply({ providerMessageId: 'no-such-message' }, { kind: 'delivery', at })).toBeUndefined()
    expect(await apply({ emailId: crypto.randomUUID() }, { kind: 'open', at })).toBeUndefined()
  })
})
