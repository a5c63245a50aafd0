import { buildServer } from './app.js'
import type { Config, Role } from './config.js'
import { type AppContext, createAppContext } from './context.js'
import type { EmbeddedDatabase } from './db/embedded.js'
import type { Logger } from './logger.js'
import { type MetricsServer, startMetricsServer } from './modules/metrics/server.js'
import { createSubmissionHandler } from './modules/relay/handler.js'
import { startRelayListeners } from './modules/relay/listeners.js'
import { assertSystemSenderSigned } from './modules/system-mail/sender-check.js'
import { onShutdownSignal } from './shutdown-signals.js'
import { markStartPhase, startPhases } from './start-phases.js'
import { createJobQueues, type RunningWorker, startWorker } from './worker.js'

markStartPhase('imports')

export type ServerCommand = 'start' | 'api' | 'worker' | 'migrate'

/**
 * Runs `start`, `api`, `worker` or `migrate` on the database given (the embedded one, started by the caller while
 * these modules loaded), until SIGINT or SIGTERM.
 */
export async function runCommand(
  command: ServerCommand,
  config: Config,
  log: Logger,
  embedded: Promise<EmbeddedDatabase> | undefined,
): Promise<void> {
  const role: Role = command === 'api' ? 'api' : command === 'worker' ? 'worker' : 'all'
  const started = Date.now()
  const ctx: AppContext = await createAppContext(config, log, role, embedded)
  if (command === 'migrate') {
    await createJobQueues(ctx)
    await ctx.close()
    log.info('migrations applied')
    return
  }

  let app: Awaited<ReturnType<typeof buildServer>> | undefined
  let worker: RunningWorker | undefined
  let metricsServer: MetricsServer | undefined
  try {
    await assertSystemSenderSigned(ctx)
    await createJobQueues(ctx)
    markStartPhase('queues')
    if (role !== 'api') worker = await startWorker(ctx)
    markStartPhase('worker')
    app = role !== 'worker' ? await buildServer(ctx) : undefined
    markStartPhase('routes')
    if (app) await app.listen({ port: config.port, host: config.host })
    markStartPhase('listen')
    // The SMTP relay serves where the API does; it closes with the context, before the database.
    if (app) await startRelayListeners(ctx, createSubmissionHandler(ctx))
    markStartPhase('relay')
    if (config.metrics.port !== undefined) {
      metricsServer = await startMetricsServer(ctx, config.metrics.port)
      log.info(`metrics on http://${config.metrics.host}:${metricsServer.port}/metrics`)
    }
  } catch (err) {
    // A start that fails once the database is up (a port already taken, say) must not leave an embedded
    // PostgreSQL running behind the exiting process.
    await app?.close().catch(() => {})
    await metricsServer?.close().catch(() => {})
    await worker?.stop().catch(() => {})
    await ctx.close().catch(() => {})
    throw err
  }
  log.info(
    { role, ms: Date.now() - started, ...startPhases() },
    app ? `Mailroom listening on http://${config.host}:${config.port}` : 'worker started',
  )

  onShutdownSignal(async (signal) => {
    log.info({ signal }, 'shutting down')
    await app?.close()
    await metricsServer?.close()
    // Emails being sent finish and are recorded before the database goes away.
    await worker?.stop()
    await ctx.close()
    process.exit(0)
  })
}
