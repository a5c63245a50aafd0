import { Stripe } from 'stripe'
import { expect } from 'vitest'
import type { Account } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'

export const webhookSecret = 'whsec_test_mailroom_secret'
/** Stripe settings for a test server; `apiUrl` points at the fake Stripe. */
export const stripeSettings = { secretKey: 'sk_test_mailroom', webhookSecret, priceId: 'price_test_monthly' }

const signer = new Stripe('sk_test_signer')
let eventNumber = 0

/** A Stripe event around `object`, with a fresh id unless one is given (a redelivery reuses it). */
export function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_${process.pid}_${++eventNumber}`) {
  return {
    id,
    object: 'event',
    type,
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
    data: { object },
  }
}

export function postWebhook(target: TestServer, payload: string, signature?: string) {
  return target.app.inject({
    method: 'POST',
    url: '/webhooks/incoming/billing',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature ? { 'stripe-signature': signature } : {}),
    },
    payload,
  })
}

/** The signature header Stripe would send, made with the library's own test helper. */
export function stripeSignature(payload: string, secret = webhookSecret, timestamp?: number): string {
  return signer.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) })
}

/** Signed as Stripe signs. */
export function signedWebhook(target: TestServer, event: object, secret = webhookSecret) {
  const payload = JSON.stringify(event)
  return postWebhook(target, payload, stripeSignature(payload, secret))
}

/** Stripe's `checkout.session.completed` for the account's project; returns the customer id. */
export async function completeCheckout(
  target: TestServer,
  account: Account,
  customer = `cus_${account.project.id.slice(0, 8)}`,
): Promise<string> {
  const response = await signedWebhook(
    target,
    stripeEvent('checkout.session.completed', {
      object: 'checkout.session',
      client_reference_id: account.project.id,
      customer,
      subscription: `sub_${account.project.id.slice(0, 8)}`,
    }),
  )
  expect(response.statusCode, response.body).toBe(200)
  return customer
}
