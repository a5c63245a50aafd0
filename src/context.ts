import type pg from 'pg'
import type { Config, Role } from './config.js'
import { connectDatabase, type Database } from './db/client.js'
import type { EmbeddedDatabase } from './db/embedded.js'
import { migrateDatabase } from './db/migrate.js'
import { type Boss, startBoss } from './jobs/boss.js'
import type { Logger } from './logger.js'
import { registerDatabaseGauges } from './modules/metrics/database-gauges.js'
import { createMetrics, type Metrics } from './modules/metrics/registry.js'
import { checkKeysOpen, sealPlaintextKeys } from './modules/projects/seal-plaintext-keys.js'
import { markStartPhase } from './start-phases.js'

/** Everything a request handler or a job needs, built once per process and passed down. */
export type AppContext = {
  config: Config
  log: Logger
  db: Database
  pool: pg.Pool
  boss: Boss
  /** This process's Prometheus registry and the counters the send and delivery paths update. */
  metrics: Metrics
  /** Runs before the job queue and the database close (background loops stop here). */
  onClose(hook: () => Promise<void>): void
  close(): Promise<void>
}

/**
 * `starting`: the embedded database already on its way up (the CLI starts it before loading the server's modules);
 * without it, and without DATABASE_URL, it is started here.
 */
export async function createAppContext(
  config: Config,
  log: Logger,
  role: Role,
  starting?: Promise<EmbeddedDatabase>,
): Promise<AppContext> {
  // Loaded only when used: a server-mode process never touches the embedded binaries.
  const embedded = config.databaseUrl
    ? undefined
    : await (starting ??
        (await import('./db/embedded.js')).startEmbeddedPostgres(config.dataDir, (message) => log.info(message)))
  markStartPhase('database')
  const url = config.databaseUrl ?? embedded?.url
  if (!url) throw new Error('no database')
  const database = connectDatabase(url)
  try {
    await migrateDatabase(database.pool)
    markStartPhase('migrations')
    const sealed = await sealPlaintextKeys(database.db, config.secret)
    if (sealed > 0) log.info({ projects: sealed }, 'sealed the plaintext API keys of projects made before 0020')
    await checkKeysOpen(database.db, config.secret)
    markStartPhase('keys')
    const { jobHeartbeatSeconds } = config.crashRecovery
    const boss = await startBoss(url, log, { worker: role !== 'api', jobHeartbeatSeconds })
    markStartPhase('jobs')
    const metrics = createMetrics(config)
    registerDatabaseGauges(metrics.registry, { db: database.db, boss, log })
    const closeHooks: (() => Promise<void>)[] = []
    return {
      config,
      log,
      db: database.db,
      pool: database.pool,
      boss,
      metrics,
      onClose(hook) {
        closeHooks.push(hook)
      },
      async close() {
        for (const hook of closeHooks.splice(0)) await hook().catch((err) => log.error({ err }, 'closing'))
        await boss.stop({ graceful: true, timeout: 10_000 }).catch((err) => log.error({ err }, 'stopping jobs'))
        await database.close()
        await embedded?.stop()
      },
    }
  } catch (err) {
    await database.close()
    await embedded?.stop()
    throw err
  }
}
