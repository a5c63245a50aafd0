import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startMetricsServer } from '../../src/modules/metrics/server.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { type Account, bearer, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { parseSamples, type Sample, sampleValue } from './prometheus-text.js'

const token = 'metrics-token-0123456789abcdef'
const domain = 'metrics.example.com'
const from = `hello@${domain}`

let sink: SmtpSink
let env: ServerWithDns
let account: Account

beforeAll(async () => {
  sink = await startSmtpSink({
    failWith: (rcpt) =>
      rcpt === 'gone@example.net'
        ? { code: 550, message: 'No such user' }
        : rcpt === 'busy@example.net'
          ? { code: 451, message: 'Try again later' }
          : undefined,
  })
  env = await startServerWithDns({
    config: { smtpUrl: sink.url, metrics: { token, port: undefined, host: '127.0.0.1' } },
  })
  account = await createAccount(env.server)
  await addVerifiedDomain(env.server, env.dns, account, domain)
})
afterAll(async () => {
  await env.close()
  await sink.close()
})

async function scrape(base: string, key = token): Promise<Sample[]> {
  const response = await fetch(`${base}/metrics`, { headers: bearer(key) })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toContain('text/plain')
  return parseSamples(await response.text())
}

function send(to: string | string[]) {
  return fetch(`${env.server.url}/v1/send`, {
    method: 'POST',
    headers: { ...bearer(account.secretKey), 'content-type': 'application/json' },
    body: JSON.stringify({ to, from, subject: 'Counted', body: '<p>Hello</p>' }),
  })
}

const smtp = { transport: 'smtp' }
const sendRequests = { method: 'POST', route: '/v1/send', status_code: '200' }

function unauthorized(message: string) {
  return {
    success: false,
    error: {
      code: 'UNAUTHORIZED',
      message,
      statusCode: 401,
      requestId: expect.any(String),
      suggestion: expect.any(String),
    },
    timestamp: expect.any(String),
  }
}

describe('GET /metrics', () => {
  it('moves as mail is sent: accepted, delivered, failed, deferred, delivery latency and requests by route', async () => {
    const before = await scrape(env.server.url)
    const counter = (samples: Sample[], name: string, labels: Record<string, string> = smtp) =>
      sampleValue(samples, name, labels) ?? 0
    const movedBy = (now: Sample[], name: string, labels: Record<string, string> = smtp) =>
      counter(now, name, labels) - counter(before, name, labels)

    expect((await send('ada@example.net')).status).toBe(200)
    expect((await send(['gone@example.net', 'busy@example.net'])).status).toBe(200)
    const contact = await createContact(env.server, account, { email: 'grace@example.net' })
    const contactResponse = await fetch(`${env.server.url}/contacts/${contact.id}`, {
      headers: bearer(account.secretKey),
    })
    expect(contactResponse.status).toBe(200)
    expect((await fetch(`${env.server.url}/no/such/route/${'x'.repeat(20)}`)).status).toBe(404)

    const [delivered] = await sink.waitForMessages(1)
    expect(delivered?.envelope.to).toEqual(['ada@example.net'])
    await vi.waitFor(async () => {
      const now = await scrape(env.server.url)
      expect(movedBy(now, 'mailroom_emails_delivered_total')).toBe(1)
      expect(movedBy(now, 'mailroom_emails_failed_total')).toBe(1)
      expect(movedBy(now, 'mailroom_emails_deferred_total')).toBe(1)
    }, eventually)

    const after = await scrape(env.server.url)
    const moved = (name: string, labels: Record<string, string> = smtp) => movedBy(after, name, labels)
    const requestsMoved = (labels: Record<string, string>) =>
      moved('mailroom_http_request_duration_seconds_count', labels)
    expect(moved('mailroom_emails_accepted_total')).toBe(3)
    expect(moved('mailroom_email_delivery_latency_seconds_count')).toBe(1)
    expect(moved('mailroom_email_delivery_latency_seconds_sum')).toBeGreaterThan(0)
    expect(requestsMoved(sendRequests)).toBe(2)
    expect(moved('mailroom_http_request_duration_seconds_bucket', { ...sendRequests, le: '+Inf' })).toBe(2)
    // Route patterns, never raw URLs: the contact's id and the unknown path do not become labels.
    expect(requestsMoved({ method: 'GET', route: '/contacts/:id', status_code: '200' })).toBe(1)
    expect(requestsMoved({ method: 'GET', route: 'unmatched', status_code: '404' })).toBe(1)
    const routes = after
      .filter((sample) => sample.name === 'mailroom_http_request_duration_seconds_count')
      .map((sample) => sample.labels.route ?? '')
    expect(routes.filter((route) => route.includes(contact.id) || route.includes('/no/such'))).toEqual([])

    // Read from the database at scrape time: the deferred email waits in the outbox.
    expect(sampleValue(after, 'mailroom_database_up')).toBe(1)
    expect(sampleValue(after, 'mailroom_outbox_emails', { status: 'queued' })).toBe(1)
    expect(sampleValue(after, 'mailroom_outbox_emails', { status: 'sending' })).toBe(0)
    expect(sampleValue(after, 'mailroom_outbox_oldest_queued_age_seconds')).toBeGreaterThanOrEqual(0)
    expect(sampleValue(after, 'mailroom_job_queue_jobs', { queue: 'contacts-import', state: 'ready' })).toBe(0)
    expect(sampleValue(after, 'mailroom_event_bus_lag_seconds')).toBeGreaterThanOrEqual(0)
    expect(sampleValue(after, 'mailroom_event_bus_pending_events')).toBeGreaterThanOrEqual(0)
    // Process metrics of this process.
    expect(sampleValue(after, 'process_resident_memory_bytes')).toBeGreaterThan(0)
    expect(sampleValue(after, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0)

    // The delivered email and the permanent bounce reach the 7-day reputation rollup through the event bus.
    await vi.waitFor(async () => {
      const now = await scrape(env.server.url)
      expect(sampleValue(now, 'mailroom_reputation_sent_7d')).toBe(1)
      expect(sampleValue(now, 'mailroom_reputation_bounce_rate_7d')).toBe(1)
      expect(sampleValue(now, 'mailroom_reputation_complaint_rate_7d')).toBe(0)
      expect(sampleValue(now, 'mailroom_event_bus_pending_events')).toBe(0)
      expect(sampleValue(now, 'mailroom_event_bus_lag_seconds')).toBe(0)
    }, eventually)
  })

  it('without the token: 401 in the standard error body, for a missing, wrong or non-bearer token', async () => {
    for (const headers of [{}, bearer('not-the-metrics-token'), { authorization: `Basic ${token}` }]) {
      const response = await fetch(`${env.server.url}/metrics`, { headers })
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual(unauthorized('Missing or invalid metrics token'))
    }
  })

  it('a project key is not the metrics token', async () => {
    const response = await fetch(`${env.server.url}/metrics`, { headers: bearer(account.secretKey) })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual(unauthorized('Missing or invalid metrics token'))
  })
})

describe('a second server in the same process, without METRICS_TOKEN', () => {
  let other: TestServer

  beforeAll(async () => {
    other = await startTestServer({ worker: false })
  })
  afterAll(async () => {
    await other.close()
  })

  it('refuses /metrics on its API port: 401, metrics are off there', async () => {
    const response = await fetch(`${other.url}/metrics`, { headers: bearer(token) })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual(unauthorized('Metrics are not enabled on this port'))
  })

  it('keeps its own counters, and serves them on a separate metrics listener without a token', async () => {
    const listener = await startMetricsServer(other.ctx, 0)
    try {
      const base = `http://127.0.0.1:${listener.port}`
      const ownBefore = await scrape(base, 'ignored')
      const firstBefore = await scrape(env.server.url)
      expect((await send('linus@example.net')).status).toBe(200)
      const ownAfter = await scrape(base, 'ignored')
      const firstAfter = await scrape(env.server.url)

      const accepted = (samples: Sample[], transport: string) =>
        sampleValue(samples, 'mailroom_emails_accepted_total', { transport }) ?? 0
      expect(accepted(firstAfter, 'smtp') - accepted(firstBefore, 'smtp')).toBe(1)
      expect(accepted(ownAfter, 'capture')).toBe(accepted(ownBefore, 'capture'))
      expect(sampleValue(ownAfter, 'mailroom_emails_accepted_total', { transport: 'smtp' })).toBeUndefined()

      const ready = await fetch(`${base}/health/ready`)
      expect(ready.status).toBe(200)
      expect(await ready.json()).toEqual({ status: 'ready', database: 'up', migrations: 'applied' })
      const missing = await fetch(`${base}/contacts`)
      expect(missing.status).toBe(404)
      expect(await missing.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND', statusCode: 404 } })
    } finally {
      await listener.close()
    }
  })
})

describe('the metrics listener with METRICS_TOKEN set', () => {
  it('asks for the token too', async () => {
    const listener = await startMetricsServer(env.server.ctx, 0)
    try {
      const base = `http://127.0.0.1:${listener.port}`
      const refused = await fetch(`${base}/metrics`)
      expect(refused.status).toBe(401)
      expect(await refused.json()).toEqual(unauthorized('Missing or invalid metrics token'))
      expect(sampleValue(await scrape(base), 'mailroom_database_up')).toBe(1)
    } finally {
      await listener.close()
    }
  })
})
