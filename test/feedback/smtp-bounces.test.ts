import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { contacts, events, suppressions } from '../../src/db/schema/index.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually, findEmails } from '../helpers/emails.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

const domain = 'bounces.example.com'

let sink: SmtpSink
let env: ServerWithDns
let account: Account

beforeAll(async () => {
  sink = await startSmtpSink({
    failMailFromWith: (sender) =>
      sender.startsWith('blocked@') ? { code: 550, message: '5.7.1 Sender not allowed' } : undefined,
    failWith: (rcpt) => (rcpt.startsWith('gone') ? { code: 550, message: '5.1.1 No such user here' } : undefined),
    failDataWith: (rcpts) =>
      rcpts.some((rcpt) => rcpt.startsWith('refused')) ? { code: 554, message: '5.7.1 Message refused' } : undefined,
  })
  env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  account = await createAccount(env.server)
  await addVerifiedDomain(env.server, env.dns, account, domain)
})
afterAll(async () => {
  await env.close()
  await sink.close()
})

/** A subscribed contact at `to`, and one email to it; the email and contact ids. */
async function send(to: string, sender = `hello@${domain}`) {
  const response = await env.server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(account.secretKey),
    payload: { to, subject: 'Hello', body: '<p>hello</p>', from: sender, subscribed: true },
  })
  expect(response.statusCode).toBe(200)
  const [sent] = response.json().data.emails
  return { emailId: sent.email as string, contactId: sent.contact.id as string }
}

async function settled(emailId: string, status: string) {
  await vi.waitFor(async () => expect((await findEmails(env.server, [emailId]))[0]?.status).toBe(status), eventually)
  return (await findEmails(env.server, [emailId]))[0]
}

const emailEvents = async (emailId: string) =>
  (
    await env.server.ctx.db
      .select({ name: events.name, data: events.data })
      .from(events)
      .where(eq(events.projectId, account.project.id))
  ).filter((event) => event.data.emailId === emailId)

const contact = async (id: string) => (await env.server.ctx.db.select().from(contacts).where(eq(contacts.id, id)))[0]

const unsubscriptions = (contactId: string) =>
  env.server.ctx.db
    .select({ data: events.data })
    .from(events)
    .where(and(eq(events.contactId, contactId), eq(events.name, 'contact.unsubscribed')))

const suppression = async (email: string) =>
  (
    await env.server.ctx.db
      .select({ reason: suppressions.reason })
      .from(suppressions)
      .where(and(eq(suppressions.projectId, account.project.id), eq(suppressions.email, email)))
  )[0]

describe("the SMTP server's permanent refusals", () => {
  it.each([
    ['at RCPT TO', 'gone@example.net', /^550 .*No such user here/],
    ['at the end of DATA', 'refused@example.net', /^554 .*Message refused/],
  ])('a 5xx %s is a permanent bounce: BOUNCED, email.bounce, unsubscribed, suppressed', async (_, to, error) => {
    const { emailId, contactId } = await send(to)
    const email = await settled(emailId, 'BOUNCED')
    expect(email?.lastError).toMatch(error)
    expect(email?.bouncedAt).toBeInstanceOf(Date)
    expect(email?.attempts).toBe(1)

    const emitted = await emailEvents(emailId)
    expect(emitted.map((event) => event.name)).toEqual(['email.bounce'])
    expect(emitted[0]?.data).toMatchObject({ emailId, bounceType: 'Permanent', bouncedAt: expect.any(String) })
    expect(await contact(contactId)).toMatchObject({ subscribed: false })
    expect(await unsubscriptions(contactId)).toEqual([{ data: { reason: 'bounce' } }])
    expect(await suppression(to)).toEqual({ reason: 'bounce' })
  })

  it('a 5xx to MAIL FROM fails the email only: it says nothing about the recipient', async () => {
    const { emailId, contactId } = await send('fine@example.net', `blocked@${domain}`)
    const email = await settled(emailId, 'FAILED')
    expect(email?.lastError).toMatch(/^550 .*Sender not allowed/)
    expect(email?.bouncedAt).toBeNull()
    expect((await emailEvents(emailId)).map((event) => event.name)).toEqual([])
    expect(await contact(contactId)).toMatchObject({ subscribed: true })
    expect(await unsubscriptions(contactId)).toEqual([])
    expect(await suppression('fine@example.net')).toBeUndefined()
  })
})
