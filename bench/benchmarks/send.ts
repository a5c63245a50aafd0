import type { BenchAccount } from '../lib/account.js'
import { httpBenchmark } from './http.js'

const domain = 'bench.mailroom.test'

/** The bench server uses the capture transport: the sender domain must be registered, not DNS-verified. */
async function addSenderDomain(base: string, account: BenchAccount): Promise<void> {
  const response = await fetch(`${base}/domains`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.secretKey}` },
    body: JSON.stringify({ domain }),
  })
  if (!response.ok) throw new Error(`adding the sender domain: ${response.status} ${await response.text()}`)
}

const content = {
  from: { name: 'Bench', email: `hello@${domain}` },
  subject: 'Your receipt, {{ data.name ?? "friend" }}',
  body: '<h1>Thanks!</h1><p>Hello {{ data.name ?? "there" }}, your order is on its way.</p>',
  data: { name: 'Ada' },
}

export const sendAccept = httpBenchmark({
  name: 'send-accept',
  description:
    'POST /v1/send to one new recipient on an API-only process: contact upsert, render and outbox insert (delivery is the delivery benchmark)',
  command: 'api',
  path: '/v1/send',
  key: (account) => account.secretKey,
  prepare: addSenderDomain,
  body: () => ({ ...content, to: '{{email}}' }),
})

export const sendBatch = httpBenchmark({
  name: 'send-batch',
  description:
    'POST /v1/send to 50 new recipients per request (each its own contact and rendered email), API-only process',
  command: 'api',
  path: '/v1/send',
  key: (account) => account.secretKey,
  prepare: addSenderDomain,
  body: () => ({ ...content, to: Array.from({ length: 50 }, (_, index) => `r${index}-{{email}}`) }),
})
