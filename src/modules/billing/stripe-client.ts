import type { Stripe } from 'stripe'
import type { Config, StripeConfig } from '../../config.js'
import { AppError } from '../../errors.js'

const clients = new WeakMap<StripeConfig, Stripe>()

/** The Stripe library loads with the first billing call: ~200 files, ~250 ms of every start otherwise. */
export const loadStripe = async (): Promise<typeof Stripe> => (await import('stripe')).Stripe

/**
 * The Stripe client of this configuration, made once. `STRIPE_API_URL` points it at another endpoint (stripe-mock,
 * the tests' local server); the library's own host, port and protocol options do it, so the requests are real.
 */
export async function stripeClient(config: Config): Promise<{ stripe: Stripe; settings: StripeConfig }> {
  const settings = config.stripe
  if (!settings) throw billingNotEnabled()
  let stripe = clients.get(settings)
  if (!stripe) {
    const endpoint = settings.apiUrl ? new URL(settings.apiUrl) : undefined
    const StripeClient = await loadStripe()
    stripe = new StripeClient(settings.secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
      ...(endpoint
        ? {
            host: endpoint.hostname,
            port: endpoint.port || (endpoint.protocol === 'https:' ? 443 : 80),
            protocol: endpoint.protocol === 'https:' ? 'https' : 'http',
          }
        : {}),
    })
    clients.set(settings, stripe)
  }
  return { stripe, settings }
}

function billingNotEnabled(): AppError {
  return new AppError('BILLING_NOT_ENABLED', 'Billing is not enabled on this server', {
    suggestion: 'Set STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID to turn on Stripe billing',
  })
}
