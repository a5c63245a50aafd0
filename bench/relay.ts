/**
 * The SMTP relay (issue #31): messages of about 20 kB, each with one attachment, accepted over 4 implicit-TLS
 * connections (the rate, and each message's latency from the end of its DATA to the 250); then the same messages
 * delivered from the outbox to a loopback SMTP sink, against the same messages accepted the `/v1/send` way
 * (`sendTransactional`, what the route calls) and delivered to the same sink, in the same run.
 *
 *   npx tsx bench/relay.ts [--size 2000] [--rounds 3] [--warmup 1000]
 *
 * One process, as `start` runs them: the relay's listeners (`startRelayListeners`, the production wiring) and the
 * outbox (`startDeliveryWorker`, real DKIM keys of a verified domain). The clients run on a thread of their own
 * (bench/lib/relay-clients-worker.ts). Each path's messages are all accepted with the outbox stopped, then the
 * outbox starts (its compose threads already running) and the time until the sink has them all is the delivery
 * rate. Both paths are warmed up first,
 * then measured in alternating rounds; the median round is the headline.
 *
 * With DATABASE_URL it creates and drops a database of its own on that server; otherwise it runs an embedded
 * PostgreSQL in a temporary directory. Prints JSON and keeps a copy in bench/results/.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.js'
import { createAppContext } from '../src/context.js'
import { createLogger } from '../src/logger.js'
import { startComposePool } from '../src/mail/outbound/dkim-pool.js'
import { ensureSelfSignedCertificate } from '../src/mail/submission/self-signed-certificate.js'
import type { Outbox } from '../src/modules/delivery/outbox.js'
import { startDeliveryWorker } from '../src/modules/delivery/worker.js'
import { createSubmissionHandler } from '../src/modules/relay/handler.js'
import { startRelayListeners } from '../src/modules/relay/listeners.js'
import { sendBody } from '../src/modules/send/schemas.js'
import { sendTransactional } from '../src/modules/send/service.js'
import { createJobQueues } from '../src/worker.js'
import { startCountingSink } from './lib/counting-sink.js'
import { cpuMsOf, descendants } from './lib/cpu.js'
import { addSendingProject } from './lib/in-process-server.js'
import { openOwnDatabase } from './lib/own-database.js'
import { percentile } from './lib/percentile.js'
import { startRelayClients } from './lib/relay-clients.js'
import type { ClientsResult } from './lib/relay-clients-worker.js'
import { relayBenchDomain, relayBenchMessage, relayBenchSendBody } from './lib/relay-message.js'
import { reportResult } from './lib/result.js'

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1000' },
  },
})
const size = Number(values.size)
const rounds = Number(values.rounds)
const warmup = Number(values.warmup)
const connections = 4
/** `/v1/send` calls in flight while the comparison's messages are accepted (their speed is not measured). */
const sendConcurrency = 32
/** A path whose messages have not all reached the sink by then is broken; the run fails instead of hanging. */
const drainTimeoutMs = 5 * 60_000
const bars = { minAcceptedPerSecond: 500, maxAcceptP99Ms: 100, minDeliveryRatio: 0.8 }

const round2 = (value: number) => Number(value.toFixed(2))

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-relay-'))
  const sink = await startCountingSink()
  const database = await openOwnDatabase()
  // stdout carries the JSON result only; warnings (the self-signed certificate's) would corrupt it.
  const log = createLogger({ logLevel: 'error' })
  const certificate = await ensureSelfSignedCertificate(path.join(dataDir, 'smtp-relay'), 'relay.bench.test', log)
  const config = loadConfig({
    ...process.env,
    ...database.env,
    DATA_DIR: dataDir,
    MAIL_TRANSPORT: 'smtp',
    SMTP_URL: sink.url,
    SMTP_RELAY_HOST: '127.0.0.1',
    SMTP_RELAY_PORT: '0',
    SMTP_RELAY_TLS_PORT: '0',
    SMTP_RELAY_TLS_KEY_FILE: certificate.keyFile,
    SMTP_RELAY_TLS_CERT_FILE: certificate.certFile,
    SMTP_RELAY_PUBLIC_HOST: 'relay.bench.test',
    LOG_LEVEL: 'error',
  })
  const ctx = await createAppContext(config, log, 'all')
  // One set of compose threads for every start of the outbox: their start-up is not part of a delivery rate.
  const composePool = startComposePool({ size: config.composeThreads })
  await createJobQueues(ctx)
  const project = await addSendingProject(ctx, 'relay bench', relayBenchDomain)
  const relay = await startRelayListeners(ctx, createSubmissionHandler(ctx))
  if (!relay) throw new Error('the SMTP relay did not start')
  const clients = await startRelayClients({ port: relay.tlsPort, password: project.secretKey, connections })

  const postgresCpu = () => descendants(process.pid).reduce((sum, pid) => sum + cpuMsOf(pid), 0)
  const cpuMs = () => {
    const usage = process.cpuUsage()
    return (usage.user + usage.system) / 1000
  }
  let offset = 0

  /** Accepts `count` messages through the relay (the outbox stopped): the rate, latencies and CPU per message. */
  const acceptOverRelay = async (count: number) => {
    const [cpuBefore, postgresBefore] = [cpuMs(), postgresCpu()]
    const elu = performance.eventLoopUtilization()
    const result: ClientsResult = await clients.send({ offset, count, prefix: 'relay' })
    const busy = performance.eventLoopUtilization(elu).utilization
    offset += count
    if (result.errors > 0) console.error(`relay: ${result.errors} messages refused, first: ${result.firstError}`)
    const sorted = [...result.latenciesMs].sort((a, b) => a - b)
    const envelope = [...result.envelopeMs].sort((a, b) => a - b)
    return {
      accepted: result.latenciesMs.length,
      acceptedPerSecond: Math.round(result.latenciesMs.length / (result.elapsedMs / 1000)),
      latencyMs: {
        p50: round2(percentile(sorted, 0.5)),
        p95: round2(percentile(sorted, 0.95)),
        p99: round2(percentile(sorted, 0.99)),
        max: round2(sorted.at(-1) ?? 0),
      },
      // MAIL FROM, RCPT TO and DATA to the 354: the sender and recipient checks, before the message is sent.
      envelopeMs: { p50: round2(percentile(envelope, 0.5)), p99: round2(percentile(envelope, 0.99)) },
      errors: result.errors,
      // The relay's event loop (this thread: the listeners and the handler); the clients have their own.
      mainThreadBusy: round2(busy),
      // This process less the clients' thread (the sink is idle meanwhile): the relay and its handler.
      cpuMsPerMessage: round2((cpuMs() - cpuBefore - result.clientCpuMs) / count),
      clientCpuMsPerMessage: round2(result.clientCpuMs / count),
      postgresCpuMsPerMessage: database.env.DATABASE_URL ? null : round2((postgresCpu() - postgresBefore) / count),
    }
  }

  /** Accepts `count` of the same messages the `/v1/send` way (the outbox stopped); its CPU, for comparison. */
  // The project as the auth hook would hand it to the route: nothing paused.
  const active = { id: project.id, sendingPausedReason: null, marketingPausedReason: null }
  const acceptOverSend = async (count: number) => {
    const [cpuBefore, postgresBefore] = [cpuMs(), postgresCpu()]
    const started = performance.now()
    const first = offset
    offset += count
    let next = first
    await Promise.all(
      Array.from({ length: sendConcurrency }, async () => {
        for (let index = next++; index < first + count; index = next++) {
          const body = sendBody.parse(relayBenchSendBody(index, `send-${index}@example.org`))
          await sendTransactional(ctx, active, body, undefined)
        }
      }),
    )
    return {
      // Called in this process, no HTTP: the service behind the route, 32 calls in flight.
      acceptedPerSecond: Math.round(count / ((performance.now() - started) / 1000)),
      cpuMsPerMessage: round2((cpuMs() - cpuBefore) / count),
      postgresCpuMsPerMessage: database.env.DATABASE_URL ? null : round2((postgresCpu() - postgresBefore) / count),
    }
  }

  /** Starts the outbox and times it until the sink has `count` more messages; stops it again. */
  const deliver = async (count: number) => {
    const target = sink.received() + count
    const [cpuBefore, postgresBefore] = [cpuMs(), postgresCpu()]
    const started = performance.now()
    const outbox: Outbox = startDeliveryWorker(ctx, { composePool })
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the sink got ${sink.received()} of ${target}`)), drainTimeoutMs)
    })
    await Promise.race([sink.waitFor(target), timedOut]).finally(() => clearTimeout(timer))
    const seconds = (performance.now() - started) / 1000
    const [cpu, postgres] = [cpuMs() - cpuBefore, postgresCpu() - postgresBefore]
    await outbox.stop()
    return {
      messagesPerSecond: Math.round(count / seconds),
      // Every thread of this process: the outbox, its compose threads and the sink's thread.
      cpuMsPerMessage: round2(cpu / count),
      postgresCpuMsPerMessage: database.env.DATABASE_URL ? null : round2(postgres / count),
    }
  }

  // Warm up both paths: connections, threads, JIT.
  await deliver((await acceptOverRelay(warmup)).accepted)
  await acceptOverSend(warmup)
  await deliver(warmup)

  const runs = []
  for (let round = 0; round < rounds; round++) {
    const accept = await acceptOverRelay(size)
    // What was refused never reaches the sink: the run reports it (`errors`) instead of waiting for it.
    const relayed = await deliver(accept.accepted)
    const sendAccept = await acceptOverSend(size)
    const sent = await deliver(size)
    runs.push({ accept, sendAccept, relayed, sent, ratio: round2(relayed.messagesPerSecond / sent.messagesPerSecond) })
  }
  const median = <T>(items: T[], by: (item: T) => number): T => {
    const sorted = [...items].sort((a, b) => by(a) - by(b))
    const middle = sorted[Math.floor(sorted.length / 2)]
    if (!middle) throw new Error('no measured round')
    return middle
  }
  const accept = median(runs, (run) => run.accept.acceptedPerSecond).accept
  const delivery = median(runs, (run) => run.ratio)

  const result = {
    bench: 'relay',
    size,
    rounds,
    warmup,
    connections,
    messageBytes: relayBenchMessage(0, 'relay-0@example.org').length,
    cores: availableParallelism(),
    loadAverage: loadavg().map((load) => round2(load)),
    database: config.databaseUrl ? 'DATABASE_URL' : 'embedded',
    accept,
    // The same messages through sendTransactional, for the cost of the two ways of taking them.
    sendApiAccept: median(runs, (run) => run.accept.acceptedPerSecond).sendAccept,
    delivery: { relayed: delivery.relayed, sendApi: delivery.sent, ratio: delivery.ratio },
    runs: runs.map((run) => ({
      accepted: run.accept.acceptedPerSecond,
      acceptP99Ms: run.accept.latencyMs.p99,
      errors: run.accept.errors,
      relayed: run.relayed.messagesPerSecond,
      sendApi: run.sent.messagesPerSecond,
      ratio: run.ratio,
    })),
    bars,
    pass:
      accept.acceptedPerSecond >= bars.minAcceptedPerSecond &&
      accept.latencyMs.p99 <= bars.maxAcceptP99Ms &&
      delivery.ratio >= bars.minDeliveryRatio,
    at: new Date().toISOString(),
  }
  reportResult(`relay-${Date.now()}.json`, result)

  await clients.close()
  await composePool.close()
  await ctx.close()
  await sink.close()
  await database.drop()
  rmSync(dataDir, { recursive: true, force: true })
}

await main()
