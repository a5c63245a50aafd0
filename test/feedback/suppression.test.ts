import { readFileSync } from 'node:fs'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { emails } from '../../src/db/schema/index.js'
import { enqueueEmails, wakeOutbox } from '../../src/modules/delivery/service.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually, findEmails, testEmail } from '../helpers/emails.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { createSnsSigner } from '../helpers/sns-signer.js'

const signer = createSnsSigner('suppression')
const domain = 'suppress.example.com'
const from = `news@${domain}`

let sink: SmtpSink
let env: ServerWithDns
let account: Account
let other: Account

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url }, snsTrust: signer.trust })
  account = await createAccount(env.server)
  other = await createAccount(env.server, 'Other project')
  await addVerifiedDomain(env.server, env.dns, account, domain)
  await addVerifiedDomain(env.server, env.dns, other, domain)
})
afterAll(async () => {
  await env.close()
  await sink.close()
})
beforeEach(() => sink.reset())

async function send(payload: object, key = account.secretKey): Promise<string> {
  const response = await env.server.app.inject({ method: 'POST', url: '/v1/send', headers: bearer(key), payload })
  expect(response.statusCode).toBe(200)
  return response.json().data.emails[0].email
}

async function marketingTemplate(owner = account): Promise<string> {
  const response = await env.server.app.inject({
    method: 'POST',
    url: '/templates',
    headers: bearer(owner.secretKey),
    payload: { name: 'News', subject: 'Our news', body: '<p>news</p>', from, type: 'MARKETING' },
  })
  expect(response.statusCode).toBe(201)
  return response.json().id
}

const email = async (id: string) => (await findEmails(env.server, [id]))[0]

async function waitFor(id: string, status: string) {
  await vi.waitFor(async () => expect((await email(id))?.status).toBe(status), eventually)
}

/** Sends a signed SES report of `kind` (a fixture name) about the email `id`, as SNS would. */
async function report(fixture: string, id: string) {
  const row = await email(id)
  const event = JSON.parse(readFileSync(new URL(`../fixtures/ses/${fixture}.json`, import.meta.url), 'utf8'))
  event.mail.messageId = row?.providerMessageId
  const response = await fetch(`${env.server.url}/webhooks/email-provider`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain; charset=UTF-8' },
    body: JSON.stringify(signer.notification(event)),
  })
  expect(await response.json()).toEqual({ success: true, data: { outcome: 'applied' } })
}

/** Mail to `control` sent after the one under test: once it arrived, the outbox has had its chance. */
async function barrier(control: string) {
  const id = await send({ to: control, subject: 'control', body: '<p>control</p>', from })
  await waitFor(id, 'SENT')
}

describe('suppressed addresses', () => {
  it('a complaint stops later marketing mail: stored FAILED with the reason, it never reaches the server', async () => {
    const first = await send({ to: 'carol@example.net', subject: 'Hi', body: '<p>hi</p>', from, subscribed: true })
    await waitFor(first, 'SENT')
    await report('event-complaint', first)

    const template = await marketingTemplate()
    const later = await send({ to: 'carol@example.net', template })
    expect(await email(later)).toMatchObject({
      status: 'FAILED',
      attempts: 0,
      lastError: 'suppressed: the address complained about earlier mail',
    })
    await barrier('control-1@example.net')
    // Only the first email, from before the complaint.
    expect(sink.messages.filter((message) => message.envelope.to.includes('carol@example.net'))).toHaveLength(1)
  })

  it('transactional mail to a permanently bounced address is refused with the reason, whatever its case', async () => {
    const first = await send({ to: 'dave@example.net', subject: 'Hi', body: '<p>hi</p>', from })
    await waitFor(first, 'SENT')
    await report('event-bounce-permanent', first)

    const [refused, accepted] = await Promise.all([
      send({ to: 'Dave@Example.net', subject: 'Your receipt', body: '<p>receipt</p>', from }),
      send({ to: 'erin@example.net', subject: 'Your receipt', body: '<p>receipt</p>', from }),
    ])
    expect(await email(refused)).toMatchObject({
      status: 'FAILED',
      lastError: 'suppressed: earlier mail to this address bounced permanently',
    })
    await waitFor(accepted, 'SENT')
    expect(sink.messages.flatMap((message) => message.envelope.to)).toEqual(['dave@example.net', 'erin@example.net'])
  })

  it('an email queued before the complaint arrived is not sent', async () => {
    const first = await send({ to: 'frank@example.net', subject: 'Hi', body: '<p>hi</p>', from })
    await waitFor(first, 'SENT')
    // Queued now, due later: it waits in the outbox while the complaint comes in.
    const [queued = ''] = await env.server.ctx.db.transaction(async (tx) => {
      const ids = await enqueueEmails(tx, account.project.id, [
        testEmail({ from: { email: from }, to: { email: 'frank@example.net' }, sourceType: 'CAMPAIGN' }),
      ])
      await tx.update(emails).set({ nextAttemptAt: sql`now() + interval '1 hour'` }).where(inArray(emails.id, ids))
      return ids
    })
    await report('event-complaint', first)

    await env.server.ctx.db.update(emails).set({ nextAttemptAt: sql`now()` }).where(eq(emails.id, queued))
    wakeOutbox(env.server.ctx.pool)
    await waitFor(queued, 'FAILED')
    expect(await email(queued)).toMatchObject({
      attempts: 1,
      lastError: 'suppressed: the address complained about earlier mail',
      sentAt: null,
    })
    await barrier('control-2@example.net')
    expect(sink.messages.filter((message) => message.envelope.to.includes('frank@example.net'))).toHaveLength(1)
  })

  it("another project's suppression list does not stop this project's mail", async () => {
    const first = await send({ to: 'gina@example.net', subject: 'Hi', body: '<p>hi</p>', from })
    await waitFor(first, 'SENT')
    await report('event-complaint', first)

    const theirs = await send({ to: 'gina@example.net', template: await marketingTemplate(other) }, other.secretKey)
    await waitFor(theirs, 'SENT')
    const [row] = await env.server.ctx.db
      .select({ projectId: emails.projectId, lastError: emails.lastError })
      .from(emails)
      .where(and(eq(emails.id, theirs), eq(emails.projectId, other.project.id)))
    expect(row).toEqual({ projectId: other.project.id, lastError: null })
  })
})
