import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectIdParams } from '../../http/project.js'
import { getBillingConsumption, getBillingLimits, setBillingLimits } from './limits.js'
import {
  billingConsumptionView,
  billingInvoicesView,
  billingLimitsBody,
  billingLimitsView,
  checkoutQuery,
  sessionUrlView,
  webhookReceived,
} from './schemas.js'
import { createBillingPortal, createCheckout, listInvoices } from './stripe-sessions.js'
import { receiveBillingWebhook } from './webhook.js'

/** Stripe events are small; anything near this is not one. */
const webhookBodyLimitBytes = 512 * 1024

export async function registerBillingRoutes(app: App, ctx: AppContext): Promise<void> {
  // Members read billing; admins change it (the role table in README). The auth hook checks the role.
  const member = { config: { auth: 'user' as const, projectParam: 'id', role: 'MEMBER' as const } }
  const admin = { config: { auth: 'user' as const, projectParam: 'id', role: 'ADMIN' as const } }
  const tags = ['billing']
  const base = '/users/@me/projects/:id'

  app.get(
    `${base}/billing-limits`,
    { ...member, schema: { tags, params: projectIdParams, response: { 200: billingLimitsView } } },
    async (request) => getBillingLimits(ctx.db, request.params.id),
  )

  app.put(
    `${base}/billing-limits`,
    {
      ...admin,
      schema: { tags, params: projectIdParams, body: billingLimitsBody, response: { 200: billingLimitsView } },
    },
    async (request) => setBillingLimits(ctx.db, request.params.id, request.body),
  )

  app.get(
    `${base}/billing-consumption`,
    { ...member, schema: { tags, params: projectIdParams, response: { 200: billingConsumptionView } } },
    async (request) => getBillingConsumption(ctx.db, request.params.id),
  )

  app.post(
    `${base}/checkout`,
    {
      ...admin,
      schema: { tags, params: projectIdParams, querystring: checkoutQuery, response: { 200: sessionUrlView } },
    },
    async (request) => createCheckout(ctx, request.params.id, request.query.currency),
  )

  app.post(
    `${base}/billing-portal`,
    { ...admin, schema: { tags, params: projectIdParams, response: { 200: sessionUrlView } } },
    async (request) => createBillingPortal(ctx, request.params.id),
  )

  app.get(
    `${base}/billing-invoices`,
    { ...member, schema: { tags, params: projectIdParams, response: { 200: billingInvoicesView } } },
    async (request) => listInvoices(ctx, request.params.id),
  )

  await app.register(async (scope: App) => {
    // The signature covers the exact bytes Stripe sent, so the body is kept raw in this scope.
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: webhookBodyLimitBytes }, (_request, body, done) =>
      done(null, body),
    )
    scope.post(
      '/webhooks/incoming/billing',
      {
        // Stripe retries for days and signs every request; unsigned ones are refused before any database work.
        config: { auth: 'none', rateLimit: false },
        schema: { tags: ['internal'], response: { 200: webhookReceived } },
      },
      async (request) => {
        const signature = request.headers['stripe-signature']
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
        await receiveBillingWebhook(ctx, raw, typeof signature === 'string' ? signature : undefined)
        return { success: true as const, received: true as const }
      },
    )
  })
}
