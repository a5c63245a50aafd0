import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

type StripeRequest = {
  method: string
  path: string
  query: URLSearchParams
  form: URLSearchParams
  auth: string
}

export type FakeStripe = { url: string; requests: StripeRequest[]; close(): Promise<void> }

const day = 86_400

function fakeInvoice(id: string, status: 'paid' | 'open', customer: string) {
  const created = 1_790_000_000
  return {
    id,
    object: 'invoice',
    number: `INV-${id}`,
    status,
    customer,
    amount_due: status === 'open' ? 2_900 : 0,
    amount_paid: status === 'paid' ? 2_900 : 0,
    currency: 'usd',
    created,
    period_start: created - 30 * day,
    period_end: created,
    due_date: status === 'open' ? created + 7 * day : null,
    hosted_invoice_url: `https://invoice.stripe.test/${id}`,
    invoice_pdf: `https://invoice.stripe.test/${id}.pdf`,
    subtotal: 2_900,
    total: 2_900,
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * A local HTTP server that answers the few Stripe API calls Mailroom makes as Stripe does (form-encoded requests,
 * JSON objects, Stripe's error envelope), so the real `stripe` client is exercised end to end.
 */
export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: StripeRequest[] = []
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    const form = new URLSearchParams(await readBody(request))
    requests.push({
      method: request.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      form,
      auth: request.headers.authorization ?? '',
    })
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${requests.length}` })
      response.end(JSON.stringify(body))
    }
    const customer = form.get('customer') ?? url.searchParams.get('customer') ?? ''
    if (customer === 'cus_gone') {
      return reply(404, {
        error: { type: 'invalid_request_error', message: `No such customer: '${customer}'`, code: 'resource_missing' },
      })
    }
    if (request.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      return reply(200, {
        id: 'cs_test_1',
        object: 'checkout.session',
        url: 'https://checkout.stripe.test/c/pay/cs_test_1',
      })
    }
    if (request.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
      return reply(200, {
        id: 'bps_test_1',
        object: 'billing_portal.session',
        customer,
        url: `https://billing.stripe.test/p/session/${customer}`,
      })
    }
    const subscription = /^\/v1\/subscriptions\/([\w-]+)$/.exec(url.pathname)
    if (request.method === 'DELETE' && subscription) {
      return reply(200, { id: subscription[1], object: 'subscription', status: 'canceled' })
    }
    if (request.method === 'GET' && url.pathname === '/v1/invoices') {
      return reply(200, {
        object: 'list',
        url: '/v1/invoices',
        has_more: false,
        data: [fakeInvoice('in_2', 'open', customer), fakeInvoice('in_1', 'paid', customer)],
      })
    }
    return reply(404, {
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${url.pathname})` },
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
