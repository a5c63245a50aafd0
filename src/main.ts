import './heap.js'
import { buildServer } from './app.js'
import { type Config, ConfigError, loadConfig, loadDataDirConfig, type Role } from './config.js'
import { type AppContext, createAppContext } from './context.js'
import { BackupError } from './db/backup-format.js'
import { DataDirLockedError } from './db/data-dir-lock.js'
import { createLogger } from './logger.js'
import { type MetricsServer, startMetricsServer } from './modules/metrics/server.js'
import { createSubmissionHandler } from './modules/relay/handler.js'
import { startRelayListeners } from './modules/relay/listeners.js'
import { assertSystemSenderSigned } from './modules/system-mail/sender-check.js'
import { markStartPhase, startPhases } from './start-phases.js'
import { createJobQueues, type RunningWorker, startWorker } from './worker.js'

markStartPhase('imports')

const usage = `Usage: mailroom <command>

Commands:
  start           run the API and the background worker in one process (default)
  api             run the HTTP API only
  worker          run background jobs only
  migrate         apply database migrations and exit
  backup <file>   write a consistent copy of the embedded database and DATA_DIR to <file>, while it runs
  restore <file>  bring such a copy back into an empty DATA_DIR
  mcp             the MCP server over stdio for AI agents, acting on the Mailroom at MAILROOM_URL with
                  MAILROOM_SECRET_KEY (--read-only: only the tools that change nothing)`

async function run(command: string, config: Config): Promise<void> {
  const log = createLogger(config)
  const role: Role = command === 'api' ? 'api' : command === 'worker' ? 'worker' : 'all'
  const started = Date.now()
  const ctx: AppContext = await createAppContext(config, log, role)
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

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'shutting down')
    await app?.close()
    await metricsServer?.close()
    // Emails being sent finish and are recorded before the database goes away.
    await worker?.stop()
    await ctx.close()
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
}

const command = process.argv[2] ?? 'start'
const file = process.argv[3]
const backupCommand = (command === 'backup' || command === 'restore') && file ? command : undefined
if (!['start', 'api', 'worker', 'migrate'].includes(command) && !backupCommand) {
  console.error(usage)
  process.exit(command === '--help' || command === 'help' ? 0 : 2)
}

try {
  if (backupCommand && file) {
    // Loaded only when used, like the embedded database; and without loadConfig, which would put a new secret
    // into the DATA_DIR a restore must find empty.
    const { runBackupCommand } = await import('./db/backup-command.js')
    await runBackupCommand(backupCommand, file, loadDataDirConfig(process.env))
    process.exit(0)
  }
  await run(command, loadConfig(process.env))
} catch (err) {
  if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof BackupError) {
    console.error(err.message)
    process.exit(1)
  }
  console.error(err)
  process.exit(1)
}
