import { asc, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { campaigns, emails } from '../../src/db/schema/index.js'
import { paymentFailedReason } from '../../src/modules/billing/webhook.js'
import { enqueueEmails } from '../../src/modules/delivery/service.js'
import { heldPriorityOffset } from '../../src/modules/delivery/sql.js'
import { campaignBody, createCampaignOk } from '../campaigns/campaign-fixtures.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { enqueue, eventually, testEmail } from '../helpers/emails.js'
import { type Account, bearer, callAs, createAccount, createContact } from '../helpers/factories.js'
import { waitOnLoops } from '../helpers/loops.js'
import type { TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { executionsWhen, insertTemplate, insertWorkflow, stepsOf, track } from '../workflows/engine/fixtures.js'
import { completeCheckout, signedWebhook, stripeEvent, stripeSettings } from './stripe-webhooks.js'

let sink: SmtpSink
let env: ServerWithDns
let server: TestServer
/** Another project, sending all along: its mail reaching the sink shows the outbox ran past the held mail. */
let control: { account: Account; from: string }

/** An account with a verified sender domain. */
async function sender(label: string): Promise<{ account: Account; from: string }> {
  const account = await createAccount(server)
  const domain = await addVerifiedDomain(server, env.dns, account, `${label}-${process.pid}.mailroom.test`)
  return { account, from: `news@${domain.domain}` }
}

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url, stripe: { ...stripeSettings, apiUrl: undefined } } })
  server = env.server
  control = await sender('control')
})
afterAll(async () => {
  await env?.close()
  await sink?.close()
})

const recipient = (label: string) => `${label}-${process.pid}@example.org`

function sendAs(account: Account, from: string, to: string) {
  return server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(account.secretKey),
    payload: { to, from, subject: 'Receipt', body: '<p>Thanks</p>' },
  })
}

/** Waits until a message to `to` is at the sink. */
async function arrived(to: string): Promise<void> {
  await vi.waitFor(
    () => expect(sink.messages.some((message) => message.envelope.to.includes(to))).toBe(true),
    eventually,
  )
}

/** A transactional email and a one-contact campaign of the control project, both at the sink. */
async function controlMailDelivered(label: string): Promise<void> {
  const to = recipient(`control-${label}`)
  expect((await sendAs(control.account, control.from, to)).statusCode).toBe(200)
  const reader = await createContact(server, control.account, { email: recipient(`control-reader-${label}`) })
  // Only the new contact: the control project's earlier readers unsubscribe before each campaign.
  await server.ctx.db.execute(
    sql`UPDATE contacts SET subscribed = false WHERE project_id = ${control.account.project.id} AND id <> ${reader.id}`,
  )
  const news = await createCampaignOk(server, control.account, campaignBody(control.from, { subject: 'Control' }))
  expect((await callAs(server, control.account)('POST', `/campaigns/${news.id}/send`)).statusCode).toBe(200)
  await arrived(to)
  await arrived(reader.email)
}

/** The subjects of the messages at the sink sent from `sender`. */
const deliveredFrom = (sender: string) =>
  sink.messages
    .filter((message) => message.parsed.from?.value[0]?.address === sender)
    .map((message) => message.parsed.subject)

async function emailsOf(projectId: string) {
  return server.ctx.db
    .select({
      to: emails.toEmail,
      subject: emails.subject,
      status: emails.status,
      attempts: emails.attempts,
      priority: emails.priority,
    })
    .from(emails)
    .where(eq(emails.projectId, projectId))
    .orderBy(asc(emails.toEmail), asc(emails.subject))
}

function disabledBody() {
  return {
    success: false,
    error: {
      code: 'PROJECT_DISABLED',
      message: `Sending is disabled for this project: ${paymentFailedReason}`,
      statusCode: 403,
      requestId: expect.any(String),
    },
    timestamp: expect.any(String),
  }
}

async function failPayment(customer: string) {
  const failed = stripeEvent('invoice.payment_failed', { customer, billing_reason: 'subscription_cycle' })
  expect((await signedWebhook(server, failed)).statusCode).toBe(200)
}

describe('a project disabled by a failed payment sends nothing until a paid invoice enables it', () => {
  let owner: Account
  let from: string
  let customer: string
  let draftId: string
  let scheduledId: string
  let workflowId: string
  const ann = recipient('ann')
  const bob = recipient('bob')

  beforeAll(async () => {
    ;({ account: owner, from } = await sender('unpaid'))
    customer = await completeCheckout(server, owner)
    await createContact(server, owner, { email: ann, data: { name: 'Ann' } })
    await createContact(server, owner, { email: bob, data: { name: 'Bob' } })
    draftId = (await createCampaignOk(server, owner, campaignBody(from, { subject: 'Draft news' }))).id
    scheduledId = (await createCampaignOk(server, owner, campaignBody(from, { subject: 'Scheduled news' }))).id
    const later = new Date(Date.now() + 3_600_000).toISOString()
    const schedule = await callAs(server, owner)('POST', `/campaigns/${scheduledId}/send`, { scheduledFor: later })
    expect(schedule.statusCode, schedule.body).toBe(200)
    const templateId = await insertTemplate(server, owner.project.id, { from, subject: 'Welcome {{ data.name }}' })
    workflowId = (
      await insertWorkflow(server, owner.project.id, {
        eventName: 'joined',
        steps: { welcome: { type: 'SEND_EMAIL', templateId, config: {} } },
        edges: [['trigger', 'welcome']],
      })
    ).id
    // Accepted just before the payment failed and due a little later (a retry, say): enqueued and postponed in
    // one transaction, so the outbox never sees it due before the project is disabled.
    await server.ctx.db.transaction(async (tx) => {
      const [id = ''] = await enqueueEmails(tx, owner.project.id, [
        testEmail({ from: { email: from }, to: { email: recipient('early') }, subject: 'Early receipt' }),
      ])
      await tx.execute(sql`UPDATE emails SET next_attempt_at = now() + interval '1 hour' WHERE id = ${id}`)
    })
    await failPayment(customer)
  })
  beforeEach(() => sink.reset())

  it('every API call that would send answers 403 PROJECT_DISABLED and changes nothing', async () => {
    const session = { cookie: owner.cookie, 'x-project-id': owner.project.id }
    const refused = [
      await sendAs(owner, from, recipient('refused')),
      await callAs(server, owner)('POST', `/campaigns/${draftId}/send`),
      await server.app.inject({ method: 'POST', url: `/campaigns/${draftId}/send`, headers: session }),
      await callAs(server, owner)('POST', `/campaigns/${scheduledId}/send`),
      await callAs(server, owner)('POST', `/campaigns/${draftId}/send`, {
        scheduledFor: new Date(Date.now() + 60_000).toISOString(),
      }),
      await callAs(server, owner)('POST', `/campaigns/${draftId}/test`, { email: owner.email }),
      await server.app.inject({
        method: 'POST',
        url: `/campaigns/${draftId}/test`,
        headers: session,
        payload: { email: owner.email },
      }),
    ]
    for (const response of refused) {
      expect(response.statusCode, response.body).toBe(403)
      expect(response.json()).toEqual(disabledBody())
    }
    expect((await emailsOf(owner.project.id)).map((email) => email.subject)).toEqual(['Early receipt'])
    const [draft, scheduled] = await Promise.all(
      [draftId, scheduledId].map(async (id) => {
        const [row] = await server.ctx.db.select().from(campaigns).where(eq(campaigns.id, id))
        return row
      }),
    )
    expect(draft).toMatchObject({ status: 'DRAFT', sentAt: null, scheduledFor: null })
    expect(scheduled).toMatchObject({ status: 'SCHEDULED', sentAt: null })
    // Reading is still allowed.
    expect((await callAs(server, owner)('GET', `/campaigns/${draftId}`)).statusCode).toBe(200)
  })

  it('mail of its workflows, scheduled campaigns and earlier sends is kept at the outbox: none reaches the sink', async () => {
    await server.ctx.db.execute(sql`UPDATE emails SET next_attempt_at = now() WHERE project_id = ${owner.project.id}`)
    // A SEND_EMAIL step completes and its email is created held.
    await track(server, owner, ann, 'joined')
    const [execution] = await executionsWhen(server, workflowId, (rows) => rows[0]?.status === 'COMPLETED')
    expect((await stepsOf(server, execution?.id ?? '')).map((step) => step.status)).toEqual(['COMPLETED', 'COMPLETED'])
    // The scheduled campaign's time comes: it starts and its audience is queued, held.
    await server.ctx.db.execute(sql`UPDATE campaigns SET scheduled_for = now() WHERE id = ${scheduledId}`)
    await waitOnLoops(async () => {
      const [row] = await server.ctx.db.select().from(campaigns).where(eq(campaigns.id, scheduledId))
      if (!row?.queuedAt) throw new Error(`campaign ${row?.status}, not queued yet`)
    }, eventually.timeout)

    await controlMailDelivered('while-disabled')
    expect(deliveredFrom(from)).toEqual([])
    const held = await emailsOf(owner.project.id)
    expect(held.map(({ to, subject }) => [to, subject])).toEqual([
      [ann, 'Scheduled news'],
      [ann, 'Welcome Ann'],
      [bob, 'Scheduled news'],
      [recipient('early'), 'Early receipt'],
    ])
    for (const email of held) {
      expect(email).toMatchObject({ status: 'QUEUED', attempts: 0 })
      expect(email.priority).toBeGreaterThanOrEqual(heldPriorityOffset)
    }
  })

  it('a paid invoice enables it: the held mail goes out exactly once, and sending is accepted again', async () => {
    const paid = stripeEvent('invoice.paid', { customer, billing_reason: 'subscription_cycle' })
    expect((await signedWebhook(server, paid)).statusCode).toBe(200)
    await sink.waitForMessages(4)
    await vi.waitFor(async () => {
      const sent = await emailsOf(owner.project.id)
      expect(sent.map(({ status, attempts }) => ({ status, attempts }))).toEqual(
        Array(4).fill({ status: 'SENT', attempts: 1 }),
      )
    }, eventually)

    // Stripe redelivering the paid invoice, and the next one: nothing is released or sent twice.
    expect((await signedWebhook(server, paid)).statusCode).toBe(200)
    const next = stripeEvent('invoice.paid', { customer, billing_reason: 'subscription_cycle' })
    expect((await signedWebhook(server, next)).statusCode).toBe(200)
    await controlMailDelivered('after-enable')
    expect(deliveredFrom(from).sort()).toEqual(['Early receipt', 'Scheduled news', 'Scheduled news', 'Welcome Ann'])

    const again = await sendAs(owner, from, recipient('again'))
    expect(again.statusCode, again.body).toBe(200)
    await arrived(recipient('again'))
  })
})

describe('a project both disabled and paused by the reputation guard', () => {
  /** Disabled by a failed payment and paused, with one email queued: it waits until both are lifted. */
  async function disabledAndPaused(label: string) {
    const { account, from } = await sender(label)
    const customer = await completeCheckout(server, account)
    await failPayment(customer)
    await server.ctx.db.execute(
      sql`UPDATE projects SET sending_paused_reason = 'bounce rate' WHERE id = ${account.project.id}`,
    )
    const to = recipient(label)
    await enqueue(server, account.project.id, [testEmail({ from: { email: from }, to: { email: to } })])
    const lift = {
      payment: async () => {
        const paid = stripeEvent('invoice.paid', { customer })
        expect((await signedWebhook(server, paid)).statusCode).toBe(200)
      },
      pause: async () => {
        const response = await server.app.inject({
          method: 'POST',
          url: `/users/@me/projects/${account.project.id}/security/resume`,
          headers: { cookie: account.cookie },
        })
        expect(response.statusCode).toBe(200)
      },
    }
    const stillHeld = async () => {
      await controlMailDelivered(`${label}-held`)
      expect(deliveredFrom(from)).toEqual([])
      expect(await emailsOf(account.project.id)).toEqual([
        expect.objectContaining({ status: 'QUEUED', attempts: 0, priority: heldPriorityOffset }),
      ])
    }
    return { lift, stillHeld, delivered: () => arrived(to) }
  }

  it('a paid invoice alone does not release its mail; resuming then does', async () => {
    const project = await disabledAndPaused('paid-first')
    await project.lift.payment()
    await project.stillHeld()
    await project.lift.pause()
    await project.delivered()
  })

  it('resuming alone does not release its mail; a paid invoice then does', async () => {
    const project = await disabledAndPaused('resumed-first')
    await project.lift.pause()
    await project.stillHeld()
    await project.lift.payment()
    await project.delivered()
  })
})
