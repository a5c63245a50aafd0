import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'
import { paymentFailedReason } from '../../src/modules/billing/webhook.js'
import { addDomain } from '../helpers/domains.js'
import { type Account, bearer, createAccount, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { type FakeStripe, startFakeStripe } from './fake-stripe.js'
import { billingCall } from './helpers.js'
import {
  completeCheckout,
  postWebhook,
  signedWebhook as sendSignedWebhook,
  stripeEvent,
  stripeSettings,
  stripeSignature,
  webhookSecret,
} from './stripe-webhooks.js'

let fake: FakeStripe
let server: TestServer
let off: TestServer

beforeAll(async () => {
  fake = await startFakeStripe()
  server = await startTestServer({ config: { stripe: { ...stripeSettings, apiUrl: fake.url } } })
  off = await startTestServer({ worker: false })
})
afterAll(async () => {
  await server?.close()
  await off?.close()
  await fake?.close()
})

const signedWebhook = (event: object, secret?: string) => sendSignedWebhook(server, event, secret)

async function billingRow(projectId: string) {
  const result = await server.ctx.db.execute<Record<string, unknown>>(
    sql`SELECT stripe_customer_id, stripe_subscription_id, subscription_status, payment_paused_at FROM project_billing WHERE project_id = ${projectId}`,
  )
  return result.rows[0]
}

async function recordedEvents(): Promise<number> {
  const result = await server.ctx.db.execute<{ count: number }>(
    sql`SELECT count(*)::int AS count FROM billing_webhook_events`,
  )
  return result.rows[0]?.count ?? 0
}

const subscribe = (account: Account, customer?: string) => completeCheckout(server, account, customer)

describe('billing off: the Stripe routes say so, caps still work', () => {
  it('/config reports billing off; checkout, portal, invoices and the webhook answer BILLING_NOT_ENABLED', async () => {
    expect((await off.app.inject({ method: 'GET', url: '/config' })).json().billing).toBe(false)
    const account = await createAccount(off)
    const call = billingCall(off, account)
    for (const response of [
      await call('POST', 'checkout'),
      await call('POST', 'billing-portal'),
      await call('GET', 'billing-invoices'),
      await postWebhook(off, '{}', 't=1,v1=abc'),
    ]) {
      expect(response.statusCode).toBe(404)
      expect(response.json()).toMatchObject({
        success: false,
        error: { code: 'BILLING_NOT_ENABLED', statusCode: 404, message: 'Billing is not enabled on this server' },
      })
    }
    expect(
      (await call('PUT', 'billing-limits', { transactional: 5, campaigns: null, workflows: null, inbound: null }))
        .statusCode,
    ).toBe(200)
  })

  it('the configuration wants both Stripe secrets, and a price, or neither', () => {
    const base = { DATA_DIR: '/tmp/mailroom-config-test', SECRET: 'x'.repeat(32) }
    expect(loadConfig(base).stripe).toBeUndefined()
    expect(() => loadConfig({ ...base, STRIPE_SECRET_KEY: 'sk_test_1' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...base, STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' })).toThrow(
      /STRIPE_PRICE_ID/,
    )
    expect(() => loadConfig({ ...base, STRIPE_SECRET_KEY: 'nope', STRIPE_WEBHOOK_SECRET: 'whsec_1' })).toThrow(
      /STRIPE_SECRET_KEY/,
    )
    const on = loadConfig({
      ...base,
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
      STRIPE_PRICE_ID: 'price_1',
    })
    expect(on.stripe).toEqual({
      secretKey: 'sk_test_1',
      webhookSecret: 'whsec_1',
      priceId: 'price_1',
      apiUrl: undefined,
    })
  })
})

describe('billing on: sessions and invoices through the stripe client', () => {
  it('/config reports billing on', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/config' })).json().billing).toBe(true)
  })

  it('checkout creates a subscription session for the project with the configured price', async () => {
    const account = await createAccount(server)
    const response = await billingCall(server, account)('POST', 'checkout?currency=eur')
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ url: 'https://checkout.stripe.test/c/pay/cs_test_1' })
    const request = fake.requests.findLast((entry) => entry.path === '/v1/checkout/sessions')
    expect(request?.auth).toBe(`Bearer ${stripeSettings.secretKey}`)
    expect(request?.form.get('mode')).toBe('subscription')
    expect(request?.form.get('client_reference_id')).toBe(account.project.id)
    expect(request?.form.get('line_items[0][price]')).toBe('price_test_monthly')
    expect(request?.form.get('currency')).toBe('eur')
    expect(request?.form.get('success_url')).toContain(account.project.id)
  })

  it('checkout refuses a bad currency (422), an active subscription (400) and a non-admin (403)', async () => {
    const account = await createAccount(server)
    expect((await billingCall(server, account)('POST', 'checkout?currency=btc')).statusCode).toBe(400)
    await subscribe(account)
    const again = await billingCall(server, account)('POST', 'checkout')
    expect(again.statusCode).toBe(400)
    expect(again.json().error.message).toContain('already has an active subscription')
    const member = await createAccount(server)
    await server.ctx.db.execute(
      sql`INSERT INTO memberships (project_id, user_id, role) VALUES (${account.project.id}, ${member.userId}, 'MEMBER')`,
    )
    expect((await billingCall(server, member)('POST', 'checkout', undefined, account.project.id)).statusCode).toBe(403)
  })

  it('the portal and invoices need a customer; with one they answer from Stripe in Plunk shape', async () => {
    const account = await createAccount(server)
    const call = billingCall(server, account)
    const noPortal = await call('POST', 'billing-portal')
    expect(noPortal.statusCode).toBe(400)
    expect(noPortal.json().error.message).toContain('No customer found')
    expect((await call('GET', 'billing-invoices')).statusCode).toBe(400)

    const customer = await subscribe(account)
    const portal = await call('POST', 'billing-portal')
    expect(portal.statusCode, portal.body).toBe(200)
    expect(portal.json()).toEqual({ url: `https://billing.stripe.test/p/session/${customer}` })

    const invoices = await call('GET', 'billing-invoices')
    expect(invoices.statusCode, invoices.body).toBe(200)
    expect(invoices.json()).toEqual({
      invoices: [
        expect.objectContaining({ id: 'in_2', status: 'open', amountDue: 2_900, paid: false, currency: 'usd' }),
        expect.objectContaining({ id: 'in_1', status: 'paid', amountPaid: 2_900, paid: true }),
      ],
      hasUnpaidInvoices: true,
      unpaidInvoices: [
        {
          id: 'in_2',
          number: 'INV-in_2',
          amountDue: 2_900,
          currency: 'usd',
          dueDate: expect.any(String),
          hostedInvoiceUrl: 'https://invoice.stripe.test/in_2',
        },
      ],
    })
    const listed = fake.requests.findLast((entry) => entry.path === '/v1/invoices')
    expect(listed?.query.get('customer')).toBe(customer)
  })

  it('deleting a project cancels its Stripe subscription', async () => {
    const account = await createAccount(server, 'Subscribed')
    await subscribe(account)
    const response = await server.app.inject({
      method: 'DELETE',
      url: `/users/@me/projects/${account.project.id}`,
      headers: { cookie: account.cookie },
      payload: { confirm: 'Subscribed' },
    })
    expect(response.statusCode).toBe(200)
    const cancelled = fake.requests.findLast((entry) => entry.method === 'DELETE')
    expect(cancelled?.path).toBe(`/v1/subscriptions/sub_${account.project.id.slice(0, 8)}`)
  })

  it("Stripe's refusal is a clear 400, not a 500", async () => {
    const account = await createAccount(server)
    await subscribe(account, 'cus_gone')
    const response = await billingCall(server, account)('POST', 'billing-portal')
    expect(response.statusCode).toBe(400)
    expect(response.json().error.message).toContain('Stripe refused the request')
  })

  it("another user's project is 404 on every billing route", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    for (const [method, path] of [
      ['POST', 'checkout'],
      ['POST', 'billing-portal'],
      ['GET', 'billing-invoices'],
    ] as const) {
      const response = await billingCall(server, stranger)(method, path, undefined, owner.project.id)
      expect(response.statusCode, path).toBe(404)
    }
  })
})

describe('the billing webhook', () => {
  it('checkout.session.completed stores the customer and subscription of the project named by the reference', async () => {
    const account = await createAccount(server)
    await subscribe(account, 'cus_stored')
    expect(await billingRow(account.project.id)).toMatchObject({
      stripe_customer_id: 'cus_stored',
      stripe_subscription_id: `sub_${account.project.id.slice(0, 8)}`,
      subscription_status: 'active',
    })
  })

  it("the project record, setup-state and consumption show the subscription and its status; others' are unchanged", async () => {
    const account = await createAccount(server)
    const other = await createAccount(server)
    // The other user is also a member of the subscribing project: its list shows both, each with its own billing.
    await server.ctx.db.execute(
      sql`INSERT INTO memberships (project_id, user_id, role) VALUES (${account.project.id}, ${other.userId}, 'MEMBER')`,
    )
    const view = async (viewer: Account, projectId: string) => {
      const response = await server.app.inject({
        method: 'GET',
        url: '/users/@me/projects',
        headers: { cookie: viewer.cookie },
      })
      expect(response.statusCode).toBe(200)
      const project = response.json<Record<string, unknown>[]>().find((entry) => entry.id === projectId)
      const setup = await server.app.inject({
        method: 'GET',
        url: `/projects/${projectId}/setup-state`,
        headers: { cookie: viewer.cookie },
      })
      const consumption = await billingCall(server, viewer)('GET', 'billing-consumption', undefined, projectId)
      return {
        record: {
          customer: project?.customer,
          subscription: project?.subscription,
          status: project?.subscriptionStatus,
        },
        hasSubscription: setup.json().data.hasSubscription,
        consumption: consumption.json().subscription,
      }
    }
    const none = {
      record: { customer: null, subscription: null, status: null },
      hasSubscription: false,
      consumption: { status: null, paymentPaused: false },
    }
    expect(await view(account, account.project.id)).toEqual(none)

    const customer = await subscribe(account)
    const subscription = `sub_${account.project.id.slice(0, 8)}`
    const subscribed = (status: string, hasSubscription: boolean) => ({
      record: { customer, subscription, status },
      hasSubscription,
      consumption: { status, paymentPaused: false },
    })
    expect(await view(account, account.project.id)).toEqual(subscribed('active', true))
    expect(await view(other, account.project.id)).toEqual(subscribed('active', true))
    expect(await view(other, other.project.id)).toEqual(none)

    for (const status of ['past_due', 'canceled']) {
      await signedWebhook(stripeEvent('customer.subscription.updated', { id: subscription, customer, status }))
      expect(await view(account, account.project.id)).toEqual(subscribed(status, status !== 'canceled'))
      expect(await view(other, other.project.id)).toEqual(none)
    }
    // The new record is what create, update and key rotation answer too.
    const renamed = await server.app.inject({
      method: 'PATCH',
      url: `/users/@me/projects/${account.project.id}`,
      headers: { cookie: account.cookie },
      payload: { name: 'Renamed' },
    })
    expect(renamed.json()).toMatchObject({ customer, subscription, subscriptionStatus: 'canceled' })
  })

  it('a forged, unsigned or altered webhook is refused with 400 and changes nothing', async () => {
    const account = await createAccount(server)
    const event = stripeEvent('checkout.session.completed', {
      client_reference_id: account.project.id,
      customer: 'cus_forged',
      subscription: 'sub_forged',
    })
    const before = await recordedEvents()
    const payload = JSON.stringify(event)
    const forged = await signedWebhook(event, 'whsec_not_ours')
    const unsigned = await postWebhook(server, payload)
    const valid = stripeSignature(payload)
    const altered = await postWebhook(server, payload.replace('cus_forged', 'cus_altered'), valid)
    const stale = await postWebhook(
      server,
      payload,
      stripeSignature(payload, webhookSecret, Math.floor(Date.now() / 1000) - 3_600),
    )
    for (const response of [forged, unsigned, altered, stale]) {
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({
        success: false,
        error: { code: 'INVALID_WEBHOOK_SIGNATURE', statusCode: 400 },
      })
    }
    expect(await billingRow(account.project.id)).toBeUndefined()
    expect(await recordedEvents()).toBe(before)
  })

  it('a failed payment pauses sending and a paid invoice resumes it; a replayed event is applied once', async () => {
    const account = await createAccount(server)
    const domain = await addDomain(server, account, `paid-${account.project.id.slice(0, 8)}.example.com`)
    const customer = await subscribe(account)
    const send = () =>
      server.app.inject({
        method: 'POST',
        url: '/v1/send',
        headers: bearer(account.secretKey),
        payload: { to: uniqueEmail('to'), from: `a@${domain.domain}`, subject: 'Hi', body: 'Hi' },
      })
    expect((await send()).statusCode).toBe(200)

    const failed = stripeEvent('invoice.payment_failed', { customer, billing_reason: 'subscription_cycle' })
    expect((await signedWebhook(failed)).json()).toEqual({ success: true, received: true })
    const paused = await send()
    expect(paused.statusCode).toBe(403)
    expect(paused.json().error).toMatchObject({
      code: 'PROJECT_DISABLED',
      message: expect.stringContaining(paymentFailedReason),
    })
    expect((await billingRow(account.project.id))?.payment_paused_at).not.toBeNull()
    const consumption = await billingCall(server, account)('GET', 'billing-consumption')
    expect(consumption.json().subscription).toEqual({ status: 'active', paymentPaused: true })

    const paid = stripeEvent('invoice.paid', { customer, billing_reason: 'subscription_cycle' })
    expect((await signedWebhook(paid)).statusCode).toBe(200)
    expect((await send()).statusCode).toBe(200)

    // The failed-payment event again (Stripe redelivering, or someone replaying it): recorded, not re-applied.
    const replay = await signedWebhook(failed)
    expect(replay.statusCode).toBe(200)
    expect((await send()).statusCode).toBe(200)
    const applied = await server.ctx.db.execute<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM billing_webhook_events WHERE id = ${failed.id}`,
    )
    expect(applied.rows[0]?.count).toBe(1)
  })

  it('the first invoice of a new subscription failing does not pause sending', async () => {
    const account = await createAccount(server)
    const customer = await subscribe(account)
    await signedWebhook(stripeEvent('invoice.payment_failed', { customer, billing_reason: 'subscription_create' }))
    const project = await server.ctx.db.execute<{ disabled: boolean }>(
      sql`SELECT disabled FROM projects WHERE id = ${account.project.id}`,
    )
    expect(project.rows[0]?.disabled).toBe(false)
  })

  it('a paid invoice does not lift a project disabled for another reason', async () => {
    const account = await createAccount(server)
    const customer = await subscribe(account)
    await server.ctx.db.execute(
      sql`UPDATE projects SET disabled = true, disabled_reason = 'Abuse review' WHERE id = ${account.project.id}`,
    )
    await signedWebhook(stripeEvent('invoice.paid', { customer }))
    const project = await server.ctx.db.execute<{ disabled: boolean; disabled_reason: string }>(
      sql`SELECT disabled, disabled_reason FROM projects WHERE id = ${account.project.id}`,
    )
    expect(project.rows[0]).toEqual({ disabled: true, disabled_reason: 'Abuse review' })
  })

  it('subscription updates and deletion follow the customer; events of unknown customers are ignored', async () => {
    const account = await createAccount(server)
    const customer = await subscribe(account)
    await signedWebhook(stripeEvent('customer.subscription.updated', { id: 'sub_new', customer, status: 'past_due' }))
    expect(await billingRow(account.project.id)).toMatchObject({
      stripe_subscription_id: 'sub_new',
      subscription_status: 'past_due',
    })
    await signedWebhook(stripeEvent('customer.subscription.deleted', { id: 'sub_new', customer, status: 'canceled' }))
    expect(await billingRow(account.project.id)).toMatchObject({
      stripe_subscription_id: null,
      subscription_status: 'canceled',
    })
    const unknown = await signedWebhook(stripeEvent('invoice.payment_failed', { customer: 'cus_nobody' }))
    expect(unknown.statusCode).toBe(200)
    const other = await signedWebhook(stripeEvent('checkout.session.completed', { client_reference_id: 'not-a-uuid' }))
    expect(other.statusCode).toBe(200)
  })
})
