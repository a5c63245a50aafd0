import { sql } from 'drizzle-orm'
import type { Stripe } from 'stripe'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { AppError } from '../../errors.js'
import type { BillingInvoicesView } from './schemas.js'
import { loadStripe, stripeClient } from './stripe-client.js'
import { activeSubscriptionStatuses } from './subscription-statuses.js'

type CustomerRow = {
  stripe_customer_id: string | null
  stripe_subscription_id: string | null
  subscription_status: string | null
}

async function billingRow(db: Executor, projectId: string): Promise<CustomerRow | undefined> {
  const result = await db.execute<CustomerRow>(sql`
    SELECT stripe_customer_id, stripe_subscription_id, subscription_status FROM project_billing
    WHERE project_id = ${projectId}`)
  return result.rows[0]
}

const activeStatuses = new Set(activeSubscriptionStatuses)

/**
 * A Stripe Checkout session selling the subscription to this project; the webhook's `checkout.session.completed`
 * (with our project id as `client_reference_id`) then records the customer and subscription. Owners and admins.
 */
export async function createCheckout(
  ctx: AppContext,
  projectId: string,
  currency: string | undefined,
): Promise<{ url: string }> {
  const { stripe, settings } = await stripeClient(ctx.config)
  const row = await billingRow(ctx.db, projectId)
  if (row?.stripe_subscription_id && activeStatuses.has(row.subscription_status ?? '')) {
    throw new AppError(
      'BAD_REQUEST',
      'This project already has an active subscription; manage it in the billing portal',
    )
  }
  const returnUrl = `${ctx.config.publicUrl}/settings/billing?project=${projectId}`
  const session = await callStripe(() =>
    stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: settings.priceId, quantity: 1 }],
      client_reference_id: projectId,
      metadata: { projectId },
      subscription_data: { metadata: { projectId } },
      ...(row?.stripe_customer_id ? { customer: row.stripe_customer_id } : {}),
      ...(currency ? { currency } : {}),
      success_url: `${returnUrl}&checkout=success`,
      cancel_url: `${returnUrl}&checkout=cancelled`,
    }),
  )
  if (!session.url) throw new AppError('SERVICE_UNAVAILABLE', 'Stripe returned a checkout session without a URL')
  return { url: session.url }
}

/** A Stripe billing portal session for the project's customer. Owners and admins. */
export async function createBillingPortal(ctx: AppContext, projectId: string): Promise<{ url: string }> {
  const { stripe } = await stripeClient(ctx.config)
  const customer = (await billingRow(ctx.db, projectId))?.stripe_customer_id
  if (!customer)
    throw new AppError('BAD_REQUEST', 'No customer found for this project: subscribe through checkout first')
  const session = await callStripe(() =>
    stripe.billingPortal.sessions.create({
      customer,
      return_url: `${ctx.config.publicUrl}/settings/billing?project=${projectId}`,
    }),
  )
  return { url: session.url }
}

const isoOf = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000).toISOString() : null)

/** The customer's latest invoices, in Plunk's shape (amounts in minor units). Any member. */
export async function listInvoices(ctx: AppContext, projectId: string): Promise<BillingInvoicesView> {
  const { stripe } = await stripeClient(ctx.config)
  const customer = (await billingRow(ctx.db, projectId))?.stripe_customer_id
  if (!customer)
    throw new AppError('BAD_REQUEST', 'No customer found for this project: subscribe through checkout first')
  const page = await callStripe(() => stripe.invoices.list({ customer, limit: 24 }))
  const invoices = page.data.map((invoice: Stripe.Invoice) => ({
    id: invoice.id ?? '',
    number: invoice.number,
    status: invoice.status,
    amountDue: invoice.amount_due,
    amountPaid: invoice.amount_paid,
    currency: invoice.currency,
    created: isoOf(invoice.created) ?? '',
    periodStart: isoOf(invoice.period_start) ?? '',
    periodEnd: isoOf(invoice.period_end) ?? '',
    hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
    invoicePdf: invoice.invoice_pdf ?? null,
    subtotal: invoice.subtotal,
    total: invoice.total,
    paid: invoice.status === 'paid',
    dueDate: isoOf(invoice.due_date),
  }))
  const unpaid = invoices.filter((invoice) => invoice.status === 'open' || invoice.status === 'uncollectible')
  return {
    invoices: invoices.map(({ dueDate: _, ...invoice }) => invoice),
    hasUnpaidInvoices: unpaid.length > 0,
    unpaidInvoices: unpaid.map((invoice) => ({
      id: invoice.id,
      number: invoice.number,
      amountDue: invoice.amountDue,
      currency: invoice.currency,
      dueDate: invoice.dueDate,
      hostedInvoiceUrl: invoice.hostedInvoiceUrl,
    })),
  }
}

/**
 * Cancels the subscription of a deleted project, best effort as Plunk does: the project is gone whatever Stripe
 * answers, so a failure is logged for the operator instead of failing the delete.
 */
export async function cancelSubscriptionQuietly(ctx: AppContext, subscriptionId: string | null): Promise<void> {
  if (!subscriptionId || !ctx.config.stripe) return
  try {
    await (await stripeClient(ctx.config)).stripe.subscriptions.cancel(subscriptionId)
  } catch (err) {
    ctx.log.warn({ err, subscriptionId }, 'could not cancel the Stripe subscription of a deleted project')
  }
}

/** Stripe's refusals and outages as our errors: the caller learns it was Stripe, never a bare 500. */
async function callStripe<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    // Loaded by now: the call was made with a client.
    if (err instanceof (await loadStripe()).errors.StripeError) {
      const status = err.statusCode
      if (status !== undefined && status >= 400 && status < 500) {
        throw new AppError('BAD_REQUEST', `Stripe refused the request: ${err.message}`)
      }
      throw new AppError('SERVICE_UNAVAILABLE', 'Stripe could not be reached; try again shortly')
    }
    throw err
  }
}
