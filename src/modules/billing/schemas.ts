import { z } from 'zod'

/** A monthly cap in emails; null: no cap. Zero stops the category altogether. */
const limitValue = z.number().int().min(0).max(1_000_000_000).nullable()

/** PUT replaces all four caps at once, as Plunk's does: every key is required, null lifts a cap. */
export const billingLimitsBody = z.object({
  transactional: limitValue,
  campaigns: limitValue,
  workflows: limitValue,
  inbound: limitValue,
})
export type BillingLimitsBody = z.infer<typeof billingLimitsBody>

const categoryState = z.object({
  limit: z.number().int().nullable(),
  usage: z.number().int(),
  percentage: z.number(),
  isWarning: z.boolean(),
  isBlocked: z.boolean(),
})
export type CategoryState = z.infer<typeof categoryState>

/** Plunk's billing-limits answer. `currency` is Stripe's, null while there is no subscription. */
export const billingLimitsView = z.object({
  transactional: categoryState,
  campaigns: categoryState,
  workflows: categoryState,
  inbound: categoryState,
  currency: z.string().nullable(),
})
export type BillingLimitsView = z.infer<typeof billingLimitsView>

export const billingConsumptionView = z.object({
  period: z.object({ start: z.string(), end: z.string() }),
  usage: z.object({
    total: z.number().int(),
    records: z.array(
      z.object({
        category: z.enum(['transactional', 'campaigns', 'workflows', 'inbound']),
        usage: z.number().int(),
        limit: z.number().int().nullable(),
        percentage: z.number(),
      }),
    ),
  }),
  credits: z.null(),
  upcomingInvoice: z.null(),
  subscription: z.object({ status: z.string().nullable(), paymentPaused: z.boolean() }),
})
export type BillingConsumptionView = z.infer<typeof billingConsumptionView>

export const sessionUrlView = z.object({ url: z.string() })

export const checkoutQuery = z.object({ currency: z.enum(['usd', 'eur', 'gbp']).optional() })

const invoice = z.object({
  id: z.string(),
  number: z.string().nullable(),
  status: z.string().nullable(),
  amountDue: z.number(),
  amountPaid: z.number(),
  currency: z.string(),
  created: z.string(),
  periodStart: z.string(),
  periodEnd: z.string(),
  hostedInvoiceUrl: z.string().nullable(),
  invoicePdf: z.string().nullable(),
  subtotal: z.number(),
  total: z.number(),
  paid: z.boolean(),
})

export const billingInvoicesView = z.object({
  invoices: z.array(invoice),
  hasUnpaidInvoices: z.boolean(),
  unpaidInvoices: z.array(
    z.object({
      id: z.string(),
      number: z.string().nullable(),
      amountDue: z.number(),
      currency: z.string(),
      dueDate: z.string().nullable(),
      hostedInvoiceUrl: z.string().nullable(),
    }),
  ),
})
export type BillingInvoicesView = z.infer<typeof billingInvoicesView>

export const webhookReceived = z.object({ success: z.literal(true), received: z.literal(true) })
