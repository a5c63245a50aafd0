import { sql } from 'drizzle-orm'
import { z } from 'zod'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { AppError } from '../../errors.js'
import { wakeOutbox } from '../delivery/service.js'
import { holdQueuedEmails, releaseHeldEmails } from '../delivery/sql.js'
import { stripeClient } from './stripe-client.js'

/** The reason a failed payment puts on a project; a paid invoice lifts only a pause with this reason. */
export const paymentFailedReason = 'Payment failed: update the payment method in the billing portal'

const stripeId = z
  .union([z.string(), z.object({ id: z.string() })])
  .transform((value) => (typeof value === 'string' ? value : value.id))
const uuid = z.uuid()

const checkoutSession = z.object({
  client_reference_id: z.string().nullish(),
  customer: stripeId.nullish(),
  subscription: stripeId.nullish(),
})
const subscription = z.object({
  id: z.string(),
  customer: stripeId,
  status: z.string(),
  metadata: z.record(z.string(), z.string()).nullish(),
})
const invoice = z.object({ customer: stripeId.nullish(), billing_reason: z.string().nullish() })

export type WebhookOutcome = 'applied' | 'duplicate' | 'ignored'

/**
 * A Stripe webhook: the signature is checked with the library's own helper on the raw body (a forged, altered or
 * stale request changes nothing), then the event is applied once. Its id is recorded in the same transaction as
 * its effect, so a redelivery or a replay finds it there and changes nothing either.
 */
export async function receiveBillingWebhook(
  ctx: AppContext,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<WebhookOutcome> {
  const { stripe, settings } = await stripeClient(ctx.config)
  if (!signature) throw new AppError('INVALID_WEBHOOK_SIGNATURE', 'Missing Stripe-Signature header')
  let event: { id: string; type: string; data: { object: unknown } }
  try {
    event = stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret)
  } catch {
    throw new AppError('INVALID_WEBHOOK_SIGNATURE', 'The Stripe signature does not match this request')
  }
  const outcome = await ctx.db.transaction(async (tx): Promise<WebhookOutcome> => {
    const projectId = await projectOfEvent(tx, event.type, event.data.object)
    const recorded = await tx.execute(sql`
      INSERT INTO billing_webhook_events (id, type, project_id) VALUES (${event.id}, ${event.type}, ${projectId ?? null})
      ON CONFLICT (id) DO NOTHING RETURNING 1`)
    if (recorded.rows.length === 0) return 'duplicate'
    if (!projectId) return 'ignored'
    return (await applyEvent(tx, projectId, event.type, event.data.object)) ? 'applied' : 'ignored'
  })
  // The mail held while the project was disabled is due already: wake the outbox once the lift has committed.
  if (outcome === 'applied' && liftsThePause.has(event.type)) wakeOutbox(ctx.pool, 'all')
  return outcome
}

const liftsThePause = new Set(['invoice.paid', 'invoice.payment_succeeded'])

/** The project an event concerns: the checkout's reference, else the customer we stored for it. */
async function projectOfEvent(tx: Executor, type: string, object: unknown): Promise<string | undefined> {
  if (type === 'checkout.session.completed') {
    const reference = uuid.safeParse(checkoutSession.safeParse(object).data?.client_reference_id)
    if (!reference.success) return undefined
    const found = await tx.execute(sql`SELECT 1 FROM projects WHERE id = ${reference.data}`)
    return found.rows.length > 0 ? reference.data : undefined
  }
  const customer = z.object({ customer: stripeId.nullish() }).safeParse(object).data?.customer
  if (!customer) return undefined
  const found = await tx.execute<{ project_id: string }>(
    sql`SELECT project_id FROM project_billing WHERE stripe_customer_id = ${customer}`,
  )
  return found.rows[0]?.project_id
}

async function applyEvent(tx: Executor, projectId: string, type: string, object: unknown): Promise<boolean> {
  switch (type) {
    case 'checkout.session.completed': {
      const session = checkoutSession.parse(object)
      await tx.execute(sql`
        INSERT INTO project_billing (project_id, stripe_customer_id, stripe_subscription_id, subscription_status)
        VALUES (${projectId}, ${session.customer ?? null}, ${session.subscription ?? null}, 'active')
        ON CONFLICT (project_id) DO UPDATE SET stripe_customer_id = excluded.stripe_customer_id,
          stripe_subscription_id = excluded.stripe_subscription_id, subscription_status = 'active', updated_at = now()`)
      return true
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated': {
      const { id, status } = subscription.parse(object)
      await tx.execute(sql`
        UPDATE project_billing SET stripe_subscription_id = ${id}, subscription_status = ${status}, updated_at = now()
        WHERE project_id = ${projectId}`)
      return true
    }
    case 'customer.subscription.deleted': {
      await tx.execute(sql`
        UPDATE project_billing SET stripe_subscription_id = NULL, subscription_status = 'canceled', updated_at = now()
        WHERE project_id = ${projectId}`)
      return true
    }
    case 'invoice.payment_failed': {
      // The first invoice of a new subscription failing is the checkout's problem, not a reason to stop sending.
      if (invoice.parse(object).billing_reason === 'subscription_create') return false
      await pauseSending(tx, projectId)
      return true
    }
    case 'invoice.paid':
    case 'invoice.payment_succeeded':
      await resumeSending(tx, projectId)
      return true
    default:
      return false
  }
}

/**
 * Sending routes answer 403 PROJECT_DISABLED while it holds, and the outbox holds the project's queued mail (campaigns
 * and workflows go on queueing it) instead of dropping it. A project disabled for another reason keeps that reason.
 */
async function pauseSending(tx: Executor, projectId: string): Promise<void> {
  await tx.execute(sql`
    UPDATE project_billing SET payment_paused_at = coalesce(payment_paused_at, now()), updated_at = now()
    WHERE project_id = ${projectId}`)
  await tx.execute(sql`
    UPDATE projects SET disabled = true, disabled_reason = ${paymentFailedReason}, updated_at = now()
    WHERE id = ${projectId} AND NOT disabled`)
  await holdQueuedEmails(tx, [projectId])
}

/** Lifts only billing's own pause; the held mail is released unless the reputation guard still pauses it. */
async function resumeSending(tx: Executor, projectId: string): Promise<void> {
  await tx.execute(sql`
    UPDATE project_billing SET payment_paused_at = NULL, updated_at = now() WHERE project_id = ${projectId}`)
  await tx.execute(sql`
    UPDATE projects SET disabled = false, disabled_reason = NULL, updated_at = now()
    WHERE id = ${projectId} AND disabled AND disabled_reason = ${paymentFailedReason}`)
  await releaseHeldEmails(tx, projectId)
}
