/**
 * Campaigns at scale, on one server process (API and worker, as `start` runs them):
 *
 * - queue: contacts in the project, `sendCampaign`, time until every recipient's email is in the outbox
 *   (`queued_at` set by the fan-out), at 100k and at 1M contacts, with the outbox delivering meanwhile, and until its
 *   first email reached the sink (`firstEmailMs`); then the campaign is cancelled (its queued emails dropped), timed
 *   too.
 * - delivery: a campaign to `size` contacts, from send until the last email reached a loopback SMTP sink
 *   (DKIM-signed), against raw pooled nodemailer to the same sink in the same round, unsigned (the bar's baseline)
 *   and signing with its own DKIM option (the same work as ours, on its one thread); meanwhile a steady
 *   `/v1/send` load over HTTP, whose accept-to-sink latency (request start to arrival) is the transactional p99.
 *   Each round first runs that load alone for `--alone` seconds (`transactionalAlone`): the p99 this machine gives
 *   transactional mail with no campaign, to tell the campaign's share of the p99 from the machine's
 *   (`transactionalP99Ratio`, during / alone); then the same campaign with no load (`campaignAlone`), the rate the
 *   campaign takes when transactional mail leaves it everything (`campaignRateRatio`, with load / alone).
 *
 *   npx tsx bench/campaign.ts [--contacts 100000] [--large 1000000] [--size 10000] [--rounds 3] [--rate 100] [--alone 10]
 *   (`--rounds 0`: the queue phase alone)
 *
 * With DATABASE_URL it creates and drops a database of its own on that server; otherwise it runs an embedded
 * PostgreSQL in a temporary directory. Prints JSON and keeps a copy in bench/results/.
 */
import { generateKeyPairSync } from 'node:crypto'
import { availableParallelism, loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { eq, sql } from 'drizzle-orm'
import { createTransport } from 'nodemailer'
import { campaigns } from '../src/db/schema/index.js'
import { cancelCampaign } from '../src/modules/campaigns/cancel.js'
import { sendCampaign } from '../src/modules/campaigns/send.js'
import { startCountingSink } from './lib/counting-sink.js'
import { cpuMsOf, descendants } from './lib/cpu.js'
import { addSendingProject, startInProcessServer } from './lib/in-process-server.js'
import { percentile } from './lib/percentile.js'
import { reportResult } from './lib/result.js'
import { resetStatementStats, topStatements } from './lib/statement-stats.js'
import { startSteadySends } from './lib/steady-sends.js'

const { values } = parseArgs({
  options: {
    contacts: { type: 'string', default: '100000' },
    large: { type: 'string', default: '1000000' },
    size: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '100' },
    alone: { type: 'string', default: '10' },
    // With the embedded PostgreSQL: the queue phase's costliest statements (pg_stat_statements), per campaign.
    statements: { type: 'boolean', default: false },
  },
})
const contactsCount = Number(values.contacts)
const largeCount = Number(values.large)
const size = Number(values.size)
const rounds = Number(values.rounds)
const transactionalRate = Number(values.rate)
const aloneSeconds = Number(values.alone)
const smtpConnections = 8
const domain = 'bench.mailroom.test'
/**
 * Sends as the API does for the secret key (the project's owner). The pre-send check still runs, but its errors are
 * overridden: the bench's domain has no DNS records, and when the machine's resolver answers rather than failing, the
 * check rightly refuses it (`from_domain_not_ready`), which ended runs half-way.
 */
const asSecretKey = { force: true, actor: { userId: null, role: 'OWNER' as const } }

const body = `<h1>Hello {{ data.name }}</h1><p>${'Some news worth reading. '.repeat(20)}</p><p><a href="https://example.org/news">Read more</a> · <a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>`

const dkimKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' })

async function rawNodemailer(sinkUrl: string, count: number, signed = false): Promise<number> {
  const transport = createTransport({
    url: sinkUrl,
    pool: true,
    maxConnections: smtpConnections,
    maxMessages: Number.POSITIVE_INFINITY,
    ...(signed && { dkim: { domainName: domain, keySelector: 'bench', privateKey: dkimKey.toString() } }),
  })
  const started = performance.now()
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      transport.sendMail({
        from: { name: 'Bench', address: `news@${domain}` },
        to: { name: '', address: `reader-${index}@example.org` },
        subject: `Hello Reader ${index}`,
        html: body.replace('{{ data.name }}', `Reader ${index}`),
        text: `Hello Reader ${index}`,
      }),
    ),
  )
  const seconds = (performance.now() - started) / 1000
  transport.close()
  return count / seconds
}

async function main() {
  const sink = await startCountingSink()
  const server = await startInProcessServer(
    {
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: sink.url,
      // The bench measures the pipeline's speed; the default pace (200/s per project) is a sender's choice.
      CAMPAIGN_RATE_PER_SECOND: '1000000',
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'error',
    },
    { statementStats: values.statements },
  )
  const { ctx, base } = server
  const statements = values.statements && !ctx.config.databaseUrl
  const newProject = (name: string) => addSendingProject(ctx, name, domain)
  const addContacts = async (projectId: string, from: number, to: number) => {
    // In slices, so one statement never holds a million rows' worth of work.
    for (let start = from; start <= to; start += 100_000) {
      await ctx.db.execute(sql`
        INSERT INTO contacts (project_id, email, subscribed, data)
        SELECT ${projectId}, 'reader-' || n || '@example.org', true, jsonb_build_object('name', 'Reader ' || n)
        FROM generate_series(${start}::int, ${Math.min(to, start + 99_999)}::int) AS n`)
    }
    await ctx.db.execute(sql`ANALYZE contacts`)
  }
  const newCampaign = async (projectId: string) => {
    const [campaign] = await ctx.db
      .insert(campaigns)
      .values({
        projectId,
        name: 'Bench',
        subject: 'Hello {{ data.name }}',
        body,
        from: `news@${domain}`,
        fromName: 'Bench',
        audienceType: 'ALL',
      })
      .returning()
    if (!campaign) throw new Error('no campaign')
    return campaign
  }
  const queuedState = async (id: string) => {
    const [row] = await ctx.db
      .select({ queuedAt: campaigns.queuedAt, total: campaigns.totalRecipients })
      .from(campaigns)
      .where(eq(campaigns.id, id))
    return row
  }

  const postgresCpu = () => descendants(process.pid).reduce((sum, pid) => sum + cpuMsOf(pid), 0)
  /** Send, poll until fully queued, then cancel: the outbox delivers meanwhile, as it would. */
  const measureQueue = async (projectId: string, recipients: number) => {
    const campaign = await newCampaign(projectId)
    let firstEmailMs: number | undefined
    if (statements) await resetStatementStats(ctx.db)
    const cpu = process.cpuUsage()
    const postgresBefore = postgresCpu()
    const started = performance.now()
    const firstEmail = sink.waitFor(sink.received() + 1).then(() => {
      firstEmailMs = performance.now() - started
    })
    await sendCampaign(ctx, projectId, campaign.id, undefined, asSecretKey)
    const sendMs = performance.now() - started
    for (;;) {
      const state = await queuedState(campaign.id)
      if (state?.queuedAt) {
        if (state.total !== recipients) throw new Error(`queued ${state.total} of ${recipients}`)
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const queuedMs = performance.now() - started
    const used = process.cpuUsage(cpu)
    const postgresMs = postgresCpu() - postgresBefore
    const top = statements ? await topStatements(ctx.db, 8) : undefined
    // A small audience is queued before its first email is out: the cancel waits for it (at most 30 s).
    await Promise.race([firstEmail, new Promise((resolve) => setTimeout(resolve, 30_000))])
    const cancelStarted = performance.now()
    await cancelCampaign(ctx, projectId, campaign.id)
    return {
      recipients,
      sendRequestMs: Math.round(sendMs),
      firstEmailMs: firstEmailMs === undefined ? null : Math.round(firstEmailMs),
      queuedMs: Math.round(queuedMs),
      recipientsPerSecond: Math.round(recipients / (queuedMs / 1000)),
      // Send to fully queued: this process (the outbox delivering meanwhile included) and the embedded PostgreSQL.
      cpuMsPerRecipient: Number(((used.user + used.system) / 1000 / recipients).toFixed(4)),
      postgresCpuMsPerRecipient: ctx.config.databaseUrl ? null : Number((postgresMs / recipients).toFixed(4)),
      ...(top && { statements: top }),
      cancelMs: Math.round(performance.now() - cancelStarted),
    }
  }

  /** Waits until this process's event loop and the embedded PostgreSQL stay nearly idle for a second (at most 3 min). */
  const waitUntilIdle = async () => {
    const started = performance.now()
    for (;;) {
      const loop = performance.eventLoopUtilization()
      const postgresBefore = postgresCpu()
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const busy = performance.eventLoopUtilization(loop).utilization
      const postgresShare = (postgresCpu() - postgresBefore) / 1_000
      const waitedMs = performance.now() - started
      if ((busy < 0.05 && postgresShare < 0.05) || waitedMs > 180_000) return Math.round(waitedMs)
    }
  }

  // One email through the outbox first: the compose threads start with the first send, which takes seconds on a busy
  // machine and would otherwise count as the first campaign email's wait.
  const warmUp = await newProject('warm-up')
  const warmed = await fetch(`${base}/v1/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${warmUp.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ to: 'warm-up@example.org', from: `hello@${domain}`, subject: 'Warm-up', body: '<p>Hi</p>' }),
  })
  if (!warmed.ok) throw new Error(`warm-up send: ${warmed.status} ${await warmed.text()}`)
  await sink.waitFor(1)
  const queueProject = await newProject('queue')
  await addContacts(queueProject.id, 1, contactsCount)
  const queue = [await measureQueue(queueProject.id, contactsCount)]
  if (largeCount > contactsCount) {
    await addContacts(queueProject.id, contactsCount + 1, largeCount)
    queue.push(await measureQueue(queueProject.id, largeCount))
  }
  if (rounds === 0) {
    // `--rounds 0`: the fan-out alone, with no delivery rounds after it.
    reportResult(`campaign-${Date.now()}.json`, { bench: 'campaign', loadAverage: loadavg(), queue })
    await server.close()
    await sink.close()
    return
  }
  // The delivery rounds compare against raw nodemailer on this process's thread: they start once the queue
  // phase's aftermath (the outbox finishing its claims, the event bus and its subscribers catching up, autovacuum
  // of a million rows) is over, or raw nodemailer would run at a third of its speed and flatter the ratio.
  const settled = await waitUntilIdle()

  const deliveryProject = await newProject('delivery')
  await addContacts(deliveryProject.id, 1, size)
  const transactionalProject = await newProject('transactional')

  let transactionalSent = 0
  /** `/v1/send` at a steady rate; returns each email's accept-to-sink latency once stopped. */
  const transactionalLoad = () => {
    const sends = startSteadySends({
      url: `${base}/v1/send`,
      secretKey: transactionalProject.secretKey,
      from: `hello@${domain}`,
      ratePerSecond: transactionalRate,
      firstId: transactionalSent,
    })
    return async () => {
      const { started, failures, seconds } = await sends.stop()
      transactionalSent += started.size
      const ids = [...started.keys()]
      const deadline = Date.now() + 30_000
      while (ids.some((id) => !sink.arrivals.has(id)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const latencies = ids
        .map((id) => (sink.arrivals.get(id) ?? Number.POSITIVE_INFINITY) - (started.get(id) ?? 0))
        .sort((a, b) => a - b)
      return {
        sent: ids.length,
        requestsPerSecond: Math.round(ids.length / seconds),
        lost: latencies.filter((ms) => !Number.isFinite(ms)).length,
        failures: failures.slice(0, 3),
        p50Ms: percentile(latencies, 0.5),
        p99Ms: percentile(latencies, 0.99),
        stages: await transactionalStages(started),
      }
    }
  }

  /**
   * Where the transactional latency went, from the emails' own timestamps: request start to the accepting
   * transaction (`created_at` is its start), then to the SMTP server's reply (`sent_at`: claim, compose, transport).
   */
  const transactionalStages = async (started: ReadonlyMap<number, number>) => {
    const rows = await ctx.db.execute<{ id: string; created: number; sent: number | null }>(sql`
      SELECT headers->>'X-Bench-Transactional' AS id, extract(epoch FROM created_at) * 1000 AS created,
        extract(epoch FROM sent_at) * 1000 AS sent
      FROM emails WHERE project_id = ${transactionalProject.id}`)
    const accepted: number[] = []
    const toSmtpReply: number[] = []
    for (const row of rows.rows) {
      const at = started.get(Number(row.id))
      if (at === undefined || row.sent === null) continue
      accepted.push(Number(row.created) - at)
      toSmtpReply.push(Number(row.sent) - Number(row.created))
    }
    const summary = (values: number[]) => {
      values.sort((a, b) => a - b)
      return { p50Ms: Math.round(percentile(values, 0.5)), p99Ms: Math.round(percentile(values, 0.99)) }
    }
    return { requestToAccepted: summary(accepted), acceptedToSmtpReply: summary(toSmtpReply) }
  }

  /** Messages other than the transactional ones: raw nodemailer's and the campaigns'. */
  const bulkArrived = () => sink.received() - sink.arrivals.size
  const measureDelivery = async () => {
    const { transactional, ...campaign } = await deliverCampaign(true)
    if (!transactional) throw new Error('no transactional load')
    return { ...campaign, transactional }
  }
  /** A campaign to the delivery project's contacts, from send to its last email at the sink, with or without the load. */
  const deliverCampaign = async (withLoad: boolean) => {
    const campaign = await newCampaign(deliveryProject.id)
    const stop = withLoad ? transactionalLoad() : undefined
    const target = bulkArrived() + size
    const cpu = process.cpuUsage()
    const postgresBefore = postgresCpu()
    const started = performance.now()
    await sendCampaign(ctx, deliveryProject.id, campaign.id, undefined, asSecretKey)
    while (bulkArrived() < target) await new Promise((resolve) => setTimeout(resolve, 5))
    const seconds = (performance.now() - started) / 1000
    const used = process.cpuUsage(cpu)
    const postgresMs = postgresCpu() - postgresBefore
    const transactional = await stop?.()
    return {
      emailsPerSecond: Math.round(size / seconds),
      // Every thread of this process (API, outbox, compose threads, sink) and the embedded PostgreSQL, per email.
      cpuMsPerEmail: Number(((used.user + used.system) / 1000 / size).toFixed(2)),
      postgresCpuMsPerEmail: ctx.config.databaseUrl ? null : Number((postgresMs / size).toFixed(2)),
      transactional,
    }
  }

  /** The same load with no campaign running: the latency this machine gives transactional mail on its own. */
  const measureTransactionalAlone = async () => {
    const stop = transactionalLoad()
    await new Promise((resolve) => setTimeout(resolve, aloneSeconds * 1_000))
    const { requestsPerSecond, lost, p50Ms, p99Ms } = await stop()
    return { requestsPerSecond, lost, p50Ms, p99Ms }
  }

  type Run = {
    raw: number
    ratio: number
    rawDkim: number
    ratioToRawDkim: number
    transactionalAlone: Awaited<ReturnType<typeof measureTransactionalAlone>>
    transactionalP99Ratio: number
    campaignAlone: Omit<Awaited<ReturnType<typeof deliverCampaign>>, 'transactional'>
    campaignRateRatio: number
  }
  const runs: (Run & Awaited<ReturnType<typeof measureDelivery>>)[] = []
  await rawNodemailer(sink.url, 2_000)
  for (let round = 0; round < rounds; round++) {
    const raw = await rawNodemailer(sink.url, size)
    const rawDkim = await rawNodemailer(sink.url, size, true)
    const transactionalAlone = await measureTransactionalAlone()
    const { transactional: _none, ...campaignAlone } = await deliverCampaign(false)
    const delivered = await measureDelivery()
    runs.push({
      ...delivered,
      raw: Math.round(raw),
      ratio: Number((delivered.emailsPerSecond / raw).toFixed(2)),
      rawDkim: Math.round(rawDkim),
      ratioToRawDkim: Number((delivered.emailsPerSecond / rawDkim).toFixed(2)),
      transactionalAlone,
      transactionalP99Ratio: Number((delivered.transactional.p99Ms / transactionalAlone.p99Ms).toFixed(2)),
      campaignAlone,
      campaignRateRatio: Number((delivered.emailsPerSecond / campaignAlone.emailsPerSecond).toFixed(2)),
    })
  }
  const median = [...runs].sort((a, b) => a.ratio - b.ratio)[Math.floor(runs.length / 2)]
  if (!median) throw new Error('no measured round')
  const medianOf = (values: number[]) =>
    percentile(
      values.sort((a, b) => a - b),
      0.5,
    )
  // The give-way figures, each the median of its own per-round values (every round compares within itself).
  const giveWay = {
    transactionalP99AloneMs: medianOf(runs.map((run) => run.transactionalAlone.p99Ms)),
    transactionalP99DuringCampaignMs: medianOf(runs.map((run) => run.transactional.p99Ms)),
    transactionalP99Ratio: medianOf(runs.map((run) => run.transactionalP99Ratio)),
    campaignEmailsPerSecondAlone: medianOf(runs.map((run) => run.campaignAlone.emailsPerSecond)),
    campaignEmailsPerSecondWithLoad: medianOf(runs.map((run) => run.emailsPerSecond)),
    campaignRateRatio: medianOf(runs.map((run) => run.campaignRateRatio)),
  }
  const hundredK = queue.find((item) => item.recipients === contactsCount)
  const million = queue.find((item) => item.recipients === largeCount)
  const result = {
    bench: 'campaign',
    contacts: contactsCount,
    large: largeCount,
    size,
    rounds,
    transactionalRatePerSecond: transactionalRate,
    cores: availableParallelism(),
    loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
    database: ctx.config.databaseUrl ? 'DATABASE_URL' : 'embedded',
    queue,
    idleBeforeDeliveryMs: settled,
    giveWay,
    delivery: median,
    runs,
    bars: {
      queued100kMs: 5_000,
      queued1MMs: 60_000,
      firstEmailMs: 2_000,
      minRatio: 0.8,
      transactionalP99Ms: 250,
      transactionalP99Ratio: 1.5,
    },
    pass:
      (hundredK?.queuedMs ?? 0) <= 5_000 * (contactsCount / 100_000) &&
      (million === undefined || million.queuedMs <= 60_000) &&
      queue.every((item) => item.firstEmailMs !== null && item.firstEmailMs <= 2_000) &&
      median.ratio >= 0.8 &&
      median.transactional.p99Ms <= 250 &&
      giveWay.transactionalP99Ratio <= 1.5,
    at: new Date().toISOString(),
  }
  reportResult(`campaign-${Date.now()}.json`, result)

  await server.close()
  await sink.close()
}

await main()
