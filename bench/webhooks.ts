/**
 * Webhook delivery (issue #32): events committed at 1,000/s, each POSTed to a local HTTP receiver, first attempt
 * p95 <= 1 s from the event's row to its arrival, while `/v1/send` keeps its bars.
 *
 *   npx tsx bench/webhooks.ts [--rate 1000] [--seconds 10] [--send-rate 250] [--backlog 20000]
 *     [--phases track,send,beside,backlog] [--statements]
 *
 * The built server (`dist/cli.js start`: API and worker, capture transport) on a fresh embedded PostgreSQL (or a
 * database of its own on DATABASE_URL's server), one endpoint taking `bench.*` and `email.sent`, a receiver on a
 * thread of the bench answering 200 at once. In turn:
 * - `track`: `/v1/track` at `--rate` for `--seconds` (autocannon, its own process, open loop), one event each;
 * - `sendAlone`: `/v1/send` at `--send-rate` to captured mail with the endpoint disabled: the send's latency
 *   without webhooks, the baseline of the next (a captured email costs ~2 ms of CPU from request to `email.sent`,
 *   so 1,000/s of them would need more than this machine's two cores before any webhook);
 * - `send`: the same with the endpoint enabled: each email's `email.sent` goes out as a webhook;
 * - `beside`: `track` again while an API-only process on the same database takes `/v1/send` at `--send-rate`;
 * - `backlog`: `--backlog` events committed at once: how fast the whole path drains (deliveries/s at capacity).
 * Latency is from the event's `created_at` (its transaction's start, so a little before its commit) to the
 * receiver's clock at the end of the request's body, first attempt of each webhook-id. CPU per delivered message
 * is the server's and PostgreSQL's over the phase (the event's own request included where there is one).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { publishEvents } from '../src/events/bus.js'
import { wakeEventDispatcher } from '../src/events/wake.js'
import { createBenchAccount } from './lib/account.js'
import { runLoad } from './lib/http-load.js'
import type { LoadResult } from './lib/load.js'
import { percentile } from './lib/percentile.js'
import { reportResult } from './lib/result.js'
import { startBenchServer } from './lib/server.js'
import { type openServerDatabase, serverDatabaseUrl, startWithDatabase } from './lib/server-database.js'
import { resetStatementStats, topStatements } from './lib/statement-stats.js'
import { startWebhookReceiver, type WebhookArrival } from './lib/webhook-receiver.js'

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
    'send-rate': { type: 'string', default: '250' },
    backlog: { type: 'string', default: '20000' },
    // Some of them only, e.g. `--phases backlog` while profiling.
    phases: { type: 'string', default: 'track,send,beside,backlog' },
    // With the embedded PostgreSQL: each phase's costliest statements (pg_stat_statements).
    statements: { type: 'boolean', default: false },
  },
})
const rate = Number(values.rate)
const sendRate = Number(values['send-rate'])
const seconds = Number(values.seconds)
const backlog = Number(values.backlog)
const phases = new Set(values.phases.split(','))
const domain = 'bench.mailroom.test'
const drainTimeoutMs = 180_000

const round = (value: number, digits = 0) => Number(value.toFixed(digits))

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-webhooks-'))
  const serverEnv: Record<string, string> = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}
  const benchEnv = { MAIL_TRANSPORT: 'capture', WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '100000000' }
  const start = () => startBenchServer({ ...serverEnv, ...benchEnv }, { dataDir, command: 'start' })
  const statements = values.statements && !serverEnv.DATABASE_URL
  const { server, database } = await startWithDatabase(start, dataDir, serverEnv, statements)
  const receiver = await startWebhookReceiver()
  try {
    const account = await createBenchAccount(server.url)
    const call = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${server.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`)
      return (await response.json()) as Record<string, unknown>
    }
    await call('POST', '/domains', { domain })
    const endpoint = await call('POST', '/webhooks', { url: receiver.url, eventTypes: ['bench.*', 'email.sent'] })

    /** Waits for `count` distinct webhook-ids of `type`; every arrival meanwhile (repeats included). */
    const collect = async (type: string, count: number) => {
      const arrivals: WebhookArrival[] = []
      const ids = new Set<string>()
      const deadline = Date.now() + drainTimeoutMs
      while (ids.size < count && Date.now() < deadline) {
        await delay(100)
        for (const arrival of await receiver.take()) {
          arrivals.push(arrival)
          if (arrival.type === type) ids.add(arrival.id)
        }
      }
      return arrivals
    }

    /** Runs `drive` and waits for its `count` webhooks of `type`: latency, rate, CPU per delivered message. */
    const phase = async (type: string, count: number, drive: () => Promise<LoadResult | undefined>) => {
      await receiver.take()
      if (statements) await resetStatementStats(database.db)
      const cpuBefore = server.cpuMs()
      const driving = drive()
      const arrivals = await collect(type, count)
      const load = await driving
      const cpuAfter = server.cpuMs()
      // The HTTP call alone, as the server timed it (request sent to answer read): the rest of an attempt's slot is
      // its wait to be recorded.
      const calls = await database.db.execute<{ p50: number; p95: number }>(sql`
        SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a.latency_ms) AS p50,
          percentile_cont(0.95) WITHIN GROUP (ORDER BY a.latency_ms) AS p95
        FROM webhook_attempts AS a JOIN webhook_messages AS m ON m.id = a.message_id WHERE m.event_type = ${type}`)
      const first = new Map<string, WebhookArrival>()
      for (const arrival of arrivals)
        if (arrival.type === type && !first.has(arrival.id)) first.set(arrival.id, arrival)
      const delivered = [...first.values()]
      const latencies = delivered.map((arrival) => arrival.arrivedAt - arrival.eventAt).sort((a, b) => a - b)
      const firstEvent = Math.min(...delivered.map((arrival) => arrival.eventAt))
      const lastArrival = Math.max(...delivered.map((arrival) => arrival.arrivedAt))
      const perMessage = (ms: number) => round(ms / Math.max(1, delivered.length), 3)
      return {
        events: count,
        delivered: delivered.length,
        repeats: arrivals.filter((arrival) => arrival.type === type).length - delivered.length,
        // From the first event's row to the last arrival.
        deliveredPerSecond: round(delivered.length / Math.max(0.001, (lastArrival - firstEvent) / 1000)),
        firstAttemptMs: {
          p50: percentile(latencies, 0.5),
          p95: percentile(latencies, 0.95),
          p99: percentile(latencies, 0.99),
          max: latencies.at(-1) ?? 0,
        },
        httpCallMs: { p50: Number(calls.rows[0]?.p50 ?? 0), p95: Number(calls.rows[0]?.p95 ?? 0) },
        cpuMsPerMessage: {
          server: perMessage(cpuAfter.server - cpuBefore.server),
          postgres: perMessage(cpuAfter.postgres - cpuBefore.postgres),
        },
        ...(load && { load }),
        ...(statements && { statements: await topStatements(database.db) }),
      }
    }

    const open = (url: string, key: string, body: unknown, perSecond = rate) => ({
      url: `${server.url}${url}`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      // autocannon spreads the rate over the connections in whole requests per second each: keep it a divisor.
      connections: 50,
      durationSeconds: seconds,
      overallRate: perSecond,
      amount: perSecond * seconds,
    })
    const sendBody = {
      to: '{{email}}',
      from: { name: 'Bench', email: `hello@${domain}` },
      subject: 'Your receipt',
      body: '<h1>Thanks!</h1><p>Your order is on its way.</p>',
    }

    const track = phases.has('track')
      ? await phase('bench.tracked', rate * seconds, () =>
          runLoad(
            open('/v1/track', account.publicKey, { email: '{{email}}', event: 'bench.tracked', data: { plan: 'pro' } }),
          ),
        )
      : undefined

    let sendAlone: { load: LoadResult; cpuMsPerEmail: { server: number; postgres: number } } | undefined
    let send: Awaited<ReturnType<typeof phase>> | undefined
    if (phases.has('send')) {
      await call('PATCH', `/webhooks/${endpoint.id}`, { enabled: false })
      const sentBefore = await countSent(database.db, account.projectId)
      const aloneCpu = server.cpuMs()
      const sendAloneLoad = await runLoad(open('/v1/send', account.secretKey, sendBody, sendRate))
      await waitForSent(database.db, account.projectId, sentBefore + sendRate * seconds)
      const aloneCpuAfter = server.cpuMs()
      sendAlone = {
        load: sendAloneLoad,
        cpuMsPerEmail: {
          server: round((aloneCpuAfter.server - aloneCpu.server) / (sendRate * seconds), 3),
          postgres: round((aloneCpuAfter.postgres - aloneCpu.postgres) / (sendRate * seconds), 3),
        },
      }
      await call('PATCH', `/webhooks/${endpoint.id}`, { enabled: true })
      send = await phase('email.sent', sendRate * seconds, () =>
        runLoad(open('/v1/send', account.secretKey, sendBody, sendRate)),
      )
    }

    // The deployment that keeps /v1/send's bar while webhooks flow: an API-only process (as `send-accept` measures
    // it) on the same database takes `/v1/send` at `--send-rate` while the `start` process's worker delivers the
    // webhooks of `/v1/track` at `--rate` (and of the sends' `email.sent`) and the captured mail.
    let beside: (Awaited<ReturnType<typeof phase>> & { send: LoadResult; apiCpuMsPerSend: number }) | undefined
    if (phases.has('beside')) {
      const api = await startBenchServer(
        { ...serverEnv, ...benchEnv, DATABASE_URL: await serverDatabaseUrl(dataDir, serverEnv) },
        { dataDir, command: 'api' },
      )
      try {
        let sendLoad: LoadResult | undefined
        const apiCpu = api.cpuMs().server
        const measured = await phase('bench.beside', rate * seconds, async () => {
          const [trackLoad, sent] = await Promise.all([
            runLoad(open('/v1/track', account.publicKey, { email: '{{email}}', event: 'bench.beside' })),
            runLoad({ ...open('/v1/send', account.secretKey, sendBody, sendRate), url: `${api.url}/v1/send` }),
          ])
          sendLoad = sent
          return trackLoad
        })
        if (!sendLoad) throw new Error('the send load did not run')
        beside = {
          ...measured,
          send: sendLoad,
          apiCpuMsPerSend: round((api.cpuMs().server - apiCpu) / Math.max(1, sendLoad.requests), 3),
        }
      } finally {
        await api.stop()
      }
    }

    const backlogPhase = phases.has('backlog')
      ? await phase('bench.backlog', backlog, async () => {
          await database.db.transaction((tx) =>
            publishEvents(
              tx,
              Array.from({ length: backlog }, (_, n) => ({
                projectId: account.projectId,
                contactId: null,
                name: 'bench.backlog',
                data: { n },
              })),
            ),
          )
          wakeEventDispatcher(database.pool)
          return undefined
        })
      : undefined

    const meets = (measured: Awaited<ReturnType<typeof phase>> | undefined) =>
      measured === undefined || (measured.delivered === measured.events && measured.firstAttemptMs.p95 <= 1_000)
    reportResult('webhooks.json', {
      bench: 'webhooks',
      cores: availableParallelism(),
      loadAverage: loadavg().map((load) => round(load, 2)),
      database: serverEnv.DATABASE_URL ? 'DATABASE_URL' : 'embedded',
      rate,
      sendRate,
      seconds,
      track,
      sendAlone,
      send,
      // How much the webhooks add to /v1/send's tail, in the same run.
      sendP99WithWebhooksOverAlone:
        send?.load && sendAlone
          ? round(send.load.latencyMs.p99 / Math.max(0.01, sendAlone.load.latencyMs.p99), 2)
          : null,
      beside,
      backlog: backlogPhase,
      serverPeakRssMb: server.peakRssMb(),
      bars: { eventsPerSecond: 1_000, firstAttemptP95Ms: 1_000, sendP99Ms: 50 },
      // The offered rate must have been reached too: a machine too busy to send 1,000/s proves nothing.
      pass:
        meets(track) &&
        (track?.load?.requestsPerSecond ?? rate) >= rate * 0.95 &&
        meets(send) &&
        meets(beside) &&
        (beside?.send.latencyMs.p99 ?? 0) <= 50,
      at: new Date().toISOString(),
    })
  } finally {
    await receiver.close()
    await database.close()
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function countSent(db: Awaited<ReturnType<typeof openServerDatabase>>['db'], projectId: string) {
  const result = await db.execute<{ sent: number }>(
    sql`SELECT count(*)::int AS sent FROM emails WHERE project_id = ${projectId} AND status = 'SENT'`,
  )
  return result.rows[0]?.sent ?? 0
}

/** Until the outbox has sent `count` of the project's emails and the bus has handed out every event. */
async function waitForSent(db: Awaited<ReturnType<typeof openServerDatabase>>['db'], projectId: string, count: number) {
  const deadline = Date.now() + drainTimeoutMs
  while (Date.now() < deadline) {
    const pending = await db.execute<{ pending: number }>(sql`
      SELECT count(*)::int AS pending FROM events, event_bus_positions AS position
      WHERE (events.tx_id, events.id) > (position.tx_id, position.event_id)`)
    if ((await countSent(db, projectId)) >= count && pending.rows[0]?.pending === 0) return
    await delay(200)
  }
  throw new Error(`the outbox did not send ${count} emails in ${drainTimeoutMs / 1000} s`)
}

await main()
