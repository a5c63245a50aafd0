import { describe, expect, it, vi } from 'vitest'
import { findFreePort } from '../../src/db/embedded.js'
import { cliSandbox } from '../helpers/cli-process.js'
import { createTestDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/emails.js'
import { bearer, sessionCookie, uniqueEmail } from '../helpers/factories.js'
import { parseSamples, type Sample, sampleValue } from './prometheus-text.js'

const { start, dataDir: newDataDir } = cliSandbox()

const token = 'process-metrics-token-0123456789'

async function post(url: string, headers: Record<string, string>, body: object): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

/** A project's secret key, through signup and project creation as a user would do it. */
async function secretKeyOfNewProject(base: string): Promise<string> {
  const signup = await post(`${base}/auth/signup`, {}, { email: uniqueEmail('metrics'), password: 'metrics password' })
  expect(signup.status).toBe(201)
  const cookie = sessionCookie(signup.headers.get('set-cookie') ?? undefined)
  const project = await post(`${base}/users/@me/projects`, { cookie }, { name: 'Metrics' })
  expect(project.status).toBe(201)
  return ((await project.json()) as { secret: string }).secret
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await fetch(url, { headers })
  expect(response.status).toBe(200)
  return parseSamples(await response.text())
}

describe('an api process and a worker process', () => {
  it('each expose their own counters (the worker on METRICS_PORT) and the same database gauges', async () => {
    // One SECRET for both, as the README asks: the worker decrypts the DKIM keys the api process created.
    const shared = { DATABASE_URL: await createTestDatabase(), SECRET: 'processes-secret-0123456789abcdef0123456789' }
    const apiPort = await findFreePort()
    const metricsPort = await findFreePort()
    const api = start('api', {
      ...shared,
      DATA_DIR: newDataDir('mailroom-metrics-api-'),
      PORT: String(apiPort),
      METRICS_TOKEN: token,
    })
    const worker = start('worker', {
      ...shared,
      DATA_DIR: newDataDir('mailroom-metrics-worker-'),
      METRICS_PORT: String(metricsPort),
    })
    await Promise.all([api.waitForOutput('Mailroom listening', 60_000), worker.waitForOutput('worker started', 60_000)])
    expect(worker.output()).toContain(`metrics on http://127.0.0.1:${metricsPort}/metrics`)

    const base = `http://127.0.0.1:${apiPort}`
    const key = await secretKeyOfNewProject(base)
    expect((await post(`${base}/domains`, bearer(key), { domain: 'processes.example.com' })).status).toBe(201)
    const sent = await post(`${base}/v1/send`, bearer(key), {
      to: 'ada@example.net',
      from: 'hello@processes.example.com',
      subject: 'Counted where it happened',
      body: '<p>Hello</p>',
    })
    expect(sent.status).toBe(200)

    const capture = { transport: 'capture' }
    const workerMetrics = `http://127.0.0.1:${metricsPort}/metrics`
    await vi.waitFor(async () => {
      expect(sampleValue(await scrape(workerMetrics), 'mailroom_emails_delivered_total', capture)).toBe(1)
    }, eventually)
    const fromWorker = await scrape(workerMetrics)
    const fromApi = await scrape(`${base}/metrics`, bearer(token))
    // Counters belong to the process that did the work.
    expect(sampleValue(fromApi, 'mailroom_emails_accepted_total', capture)).toBe(1)
    expect(sampleValue(fromWorker, 'mailroom_emails_accepted_total', capture)).toBe(0)
    expect(sampleValue(fromApi, 'mailroom_emails_delivered_total', capture)).toBe(0)
    expect(sampleValue(fromWorker, 'mailroom_email_delivery_latency_seconds_count', capture)).toBe(1)
    // Database gauges describe the installation, whichever process is asked.
    for (const samples of [fromApi, fromWorker]) {
      expect(sampleValue(samples, 'mailroom_database_up')).toBe(1)
      expect(sampleValue(samples, 'mailroom_outbox_emails', { status: 'queued' })).toBe(0)
    }
    expect((await fetch(`http://127.0.0.1:${metricsPort}/health/ready`)).status).toBe(200)

    expect(await api.stop('SIGTERM')).toBe(0)
    expect(await worker.stop('SIGTERM')).toBe(0)
  }, 120_000)
})
