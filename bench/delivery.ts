/**
 * Delivery throughput: emails accepted into the outbox until they have all reached a loopback SMTP sink,
 * DKIM-signed with RSA-2048, against raw pooled nodemailer (no DKIM) sending to the same sink in the same run.
 *
 *   npx tsx bench/delivery.ts [--size 5000] [--rounds 3] [--warmup 2000]
 *
 * Both paths are warmed up first (V8 keeps compiling the hot paths for the first few thousand emails), then
 * measured in alternating rounds of `size` emails each; the median round is the headline, as for the HTTP
 * benchmarks, and each round's ratio compares two runs taken back to back.
 *
 * With DATABASE_URL it creates and drops a database of its own on that server; otherwise it runs an embedded
 * PostgreSQL in a temporary directory. Prints JSON and keeps a copy in bench/results/.
 */
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createTransport } from 'nodemailer'
import { loadConfig } from '../src/config.js'
import { createAppContext } from '../src/context.js'
import { projects } from '../src/db/schema/index.js'
import { createLogger } from '../src/logger.js'
import { enqueueEmails, type NewEmail, wakeOutbox } from '../src/modules/delivery/service.js'
import { startDeliveryWorker } from '../src/modules/delivery/worker.js'
import { generateProjectKeys } from '../src/modules/projects/keys.js'
import { startCountingSink } from './lib/counting-sink.js'
import { cpuMsOf, descendants } from './lib/cpu.js'
import { openOwnDatabase } from './lib/own-database.js'
import { reportResult } from './lib/result.js'

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2000' },
  },
})
const size = Number(values.size)
const rounds = Number(values.rounds)
const warmup = Number(values.warmup)
const smtpConnections = 8
const domain = 'bench.mailroom.test'

function benchEmail(index: number): NewEmail {
  return {
    from: { email: `news@${domain}`, name: 'Mailroom Bench' },
    to: { email: `reader${index}@example.org`, name: `Reader ${index}` },
    subject: `Your weekly digest #${index}`,
    html: `<h1>Hello reader ${index}</h1><p>${'Some news worth reading. '.repeat(20)}</p><p><a href="https://example.org/${index}">Read more</a></p>`,
    headers: { 'X-Bench': String(index) },
  }
}

async function rawNodemailer(sinkUrl: string, count: number): Promise<number> {
  const transport = createTransport({
    url: sinkUrl,
    pool: true,
    maxConnections: smtpConnections,
    maxMessages: Number.POSITIVE_INFINITY,
  })
  const started = performance.now()
  await Promise.all(
    Array.from({ length: count }, (_, index) => {
      const email = benchEmail(index)
      return transport.sendMail({
        from: { name: email.from.name ?? '', address: email.from.email },
        to: { name: email.to.name ?? '', address: email.to.email },
        subject: email.subject,
        html: email.html,
        text: `Hello reader ${index}`,
        headers: email.headers,
      })
    }),
  )
  const seconds = (performance.now() - started) / 1000
  transport.close()
  return count / seconds
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
  const sink = await startCountingSink()
  // On a shared server the run gets a database of its own, dropped at the end, so it neither sees nor
  // touches anyone else's rows.
  const database = await openOwnDatabase()
  const config = loadConfig({
    ...process.env,
    ...database.env,
    DATA_DIR: dataDir,
    MAIL_TRANSPORT: 'smtp',
    SMTP_URL: sink.url,
    // stdout carries the JSON result only; warnings would corrupt it.
    LOG_LEVEL: 'error',
  })
  const ctx = await createAppContext(config, createLogger(config), 'worker')
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const key = { selector: 'bench', privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }
  const outbox = startDeliveryWorker(ctx, { resolveDkimKey: async () => key })
  const [project] = await ctx.db
    .insert(projects)
    .values({ name: 'bench', ...generateProjectKeys() })
    .returning()
  if (!project) throw new Error('no project')

  let sent = 0
  const send = async (count: number) => {
    const target = sink.received() + count
    const started = performance.now()
    await ctx.db.transaction((tx) =>
      enqueueEmails(
        tx,
        project.id,
        Array.from({ length: count }, (_, index) => benchEmail(sent + index)),
      ),
    )
    sent += count
    wakeOutbox(ctx.pool)
    const enqueuedMs = performance.now() - started
    await sink.waitFor(target)
    return { enqueuedMs, totalMs: performance.now() - started }
  }

  const postgresCpu = () => descendants(process.pid).reduce((sum, pid) => sum + cpuMsOf(pid), 0)
  // CPU of every thread of this process (sender, compose threads, sink) per email: what the cores had to give.
  const cpuMsPerEmail = (usage: NodeJS.CpuUsage) => Number(((usage.user + usage.system) / 1000 / size).toFixed(2))

  const measureRaw = async () => {
    const cpu = process.cpuUsage()
    const emailsPerSecond = await rawNodemailer(sink.url, size)
    return { emailsPerSecond, cpuMsPerEmail: cpuMsPerEmail(process.cpuUsage(cpu)) }
  }
  const measureOutbox = async () => {
    const cpu = process.cpuUsage()
    const postgresBefore = postgresCpu()
    const elu = performance.eventLoopUtilization()
    const { enqueuedMs, totalMs } = await send(size)
    return {
      emailsPerSecond: size / (totalMs / 1000),
      enqueueMs: Math.round(enqueuedMs),
      acceptToSinkMs: Math.round(totalMs),
      cpuMsPerEmail: cpuMsPerEmail(process.cpuUsage(cpu)),
      // The embedded PostgreSQL's processes (children of this one); not measurable on a DATABASE_URL server.
      postgresCpuMsPerEmail: database.env.DATABASE_URL
        ? null
        : Number(((postgresCpu() - postgresBefore) / size).toFixed(2)),
      mainThreadBusy: Number(performance.eventLoopUtilization(elu).utilization.toFixed(2)),
    }
  }

  // Warm up both paths: threads, connections, JIT.
  await send(warmup)
  await rawNodemailer(sink.url, warmup)

  const runs: { outbox: Awaited<ReturnType<typeof measureOutbox>>; raw: Awaited<ReturnType<typeof measureRaw>> }[] = []
  for (let round = 0; round < rounds; round++) {
    const raw = await measureRaw()
    const outbox = await measureOutbox()
    runs.push({ outbox, raw })
  }
  const byRate = [...runs].sort((a, b) => a.outbox.emailsPerSecond - b.outbox.emailsPerSecond)
  const median = byRate[Math.floor(byRate.length / 2)] ?? byRate[0]
  if (!median) throw new Error('no measured round')
  const ratio = (run: (typeof runs)[number]) =>
    Number((run.outbox.emailsPerSecond / run.raw.emailsPerSecond).toFixed(2))
  const rounded = <T extends { emailsPerSecond: number }>(stats: T) => ({
    ...stats,
    emailsPerSecond: Math.round(stats.emailsPerSecond),
  })

  const result = {
    bench: 'delivery',
    size,
    rounds,
    warmup,
    cores: availableParallelism(),
    loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
    database: config.databaseUrl ? 'DATABASE_URL' : 'embedded',
    dkim: 'rsa-2048, relaxed/relaxed, signed on worker threads',
    outbox: rounded(median.outbox),
    rawNodemailer: { ...rounded(median.raw), dkim: false },
    ratio: ratio(median),
    runs: runs.map((run) => ({
      outbox: Math.round(run.outbox.emailsPerSecond),
      raw: Math.round(run.raw.emailsPerSecond),
      ratio: ratio(run),
    })),
    bars: { minEmailsPerSecond: 1000, minRatio: 0.5 },
    pass: median.outbox.emailsPerSecond >= 1000 && ratio(median) >= 0.5,
    at: new Date().toISOString(),
  }
  reportResult(`delivery-${Date.now()}.json`, result)

  await outbox.stop()
  await ctx.close()
  await sink.close()
  await database.drop()
  rmSync(dataDir, { recursive: true, force: true })
}

await main()
