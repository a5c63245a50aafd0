import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { pino } from 'pino'
import { buildServer } from '../../src/app.js'
import type { Config } from '../../src/config.js'
import { type AppContext, createAppContext } from '../../src/context.js'
import type { App } from '../../src/http/app-type.js'
import type { LoopsOptions } from '../../src/jobs/worker.js'
import { createLogger } from '../../src/logger.js'
import type { SnsTrust } from '../../src/mail/aws/sns.js'
import type { InboundServer } from '../../src/mail/inbound/server.js'
import type { Outbox } from '../../src/modules/delivery/outbox.js'
import type { DeliveryWorkerOptions } from '../../src/modules/delivery/worker.js'
import { createJobQueues, startWorker } from '../../src/worker.js'
import { createTestDatabase } from './database.js'

export type TestServer = {
  app: App
  ctx: AppContext
  /** Base URL of the listening server, e.g. http://127.0.0.1:PORT */
  url: string
  config: Config
  /** The delivery outbox, when the worker runs. */
  outbox: Outbox | undefined
  /** The inbound SMTP receiver, when the worker runs and `inboundSmtpPort` is set (0: a random port). */
  inbound: InboundServer | undefined
  close(): Promise<void>
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return Object.freeze({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: undefined,
    dataDir: path.join(tmpdir(), 'mailroom-unused'),
    publicUrl: 'http://localhost:3000',
    mailTransport: 'capture',
    smtpUrl: undefined,
    sesRegion: 'us-east-1',
    snsTopicArns: [],
    dnsServers: [],
    redisUrl: undefined,
    trustProxy: false,
    secret: 'test-secret-test-secret-test-secret-0123456789',
    webhookAllowPrivate: true,
    webhooks: {
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      disableAfterMs: 5 * 86_400_000,
      logRetentionDays: 30,
    },
    disableSignups: false,
    systemEmailFrom: { email: 'accounts@mailroom.test', name: 'Mailroom' },
    systemEmailDkim: 'mailroom',
    requireEmailVerification: false,
    oauth: { github: undefined, google: undefined },
    idempotencyTtlHours: 24,
    attachmentsMaxBytes: 10 * 1024 * 1024,
    rateLimitPerMinute: 100_000,
    authRateLimitPerMinute: 100_000,
    failedAuthLimitPerMinute: 100_000,
    mcp: { readOnly: false, confirmRecipientsAbove: 10 },
    reputation: {
      enabled: true,
      bounceRatePercent: 8,
      complaintRatePercent: 0.3,
      minSent: 100,
      ceilingBounceRatePercent: 10,
      ceilingComplaintRatePercent: 0.5,
    },
    metrics: { token: undefined, port: undefined, host: '127.0.0.1' },
    campaignRatePerSecond: 100_000,
    // In this process: threads loaded through tsx take seconds to start in every file. The process tests and the
    // delivery benchmark run the built server, with its threads.
    composeThreads: 0,
    crashRecovery: {
      outboxLeaseSeconds: 30,
      jobHeartbeatSeconds: 20,
      workflowExecutionLeaseSeconds: 30,
      webhookLeaseSeconds: 30,
    },
    logLevel: 'silent',
    inboundSmtpPort: undefined,
    inboundSmtpHost: '127.0.0.1',
    inboundMaxMessageBytes: 1024 * 1024,
    inboundTls: undefined,
    inboundDomain: undefined,
    smtpRelay: { enabled: false as const, reason: 'off in tests unless asked for' },
    uploads: { maxBytes: 10 * 1024 * 1024, maxPixels: 50_000_000 },
    s3: undefined,
    stripe: undefined,
    ...overrides,
  })
}

export type TestServerOptions = {
  config?: Partial<Config>
  /** A database URL to reuse (e.g. a second server on the same data); a fresh clone otherwise. */
  databaseUrl?: string
  /** Extra routes registered before the server starts, for exercising cross-cutting plugins. */
  routes?: (app: App, ctx: AppContext) => void
  worker?: boolean
  /** Outbox settings for the worker, e.g. a DKIM key resolver or a shorter poll. */
  delivery?: DeliveryWorkerOptions
  /** Background loop settings, e.g. a long idle pause to prove that wakes, not polls, start the work. */
  loops?: LoopsOptions
  /** SNS certificates and subscription URLs to trust (see sns-signer.ts); Amazon's hosts otherwise. */
  snsTrust?: SnsTrust
  /** Where the server's log lines go (with `config.logLevel` above `silent`), e.g. a `captureLog()` stream. */
  log?: pino.DestinationStream
}

/** The whole app (API and, by default, the worker) on a fresh database, listening on a random loopback port. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-test-'))
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase())
  const config = testConfig({ dataDir, ...options.config, databaseUrl })
  const worker = options.worker ?? true
  const ctx = await createAppContext(config, createLogger(config, options.log), worker ? 'all' : 'api')
  await createJobQueues(ctx)
  const running = worker ? await startWorker(ctx, { delivery: options.delivery, loops: options.loops }) : undefined
  const app = await buildServer(ctx, options.snsTrust ? { snsTrust: options.snsTrust } : {})
  const outbox = running?.outbox
  try {
    options.routes?.(app, ctx)
    await app.listen({ port: 0, host: '127.0.0.1' })
  } catch (err) {
    await app.close()
    await outbox?.stop()
    await ctx.close()
    throw err
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    app,
    ctx,
    url: `http://127.0.0.1:${port}`,
    config,
    outbox,
    inbound: running?.inbound,
    async close() {
      await app.close()
      await outbox?.stop()
      await ctx.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * A handle on a server listening elsewhere (the web tier's, started by its global setup): requests go to `url`,
 * while `app.inject` and `ctx.db` reach the same database through an API-only app here that never listens.
 */
export async function attachTestServer(url: string, databaseUrl: string): Promise<TestServer> {
  const config = testConfig({ databaseUrl })
  const ctx = await createAppContext(config, createLogger(config), 'api')
  const app = await buildServer(ctx)
  return {
    app,
    ctx,
    url,
    config,
    outbox: undefined,
    inbound: undefined,
    async close() {
      await app.close()
      await ctx.close()
    },
  }
}
