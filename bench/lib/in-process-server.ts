import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { buildServer } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { type AppContext, createAppContext } from '../../src/context.js'
import { projects } from '../../src/db/schema/index.js'
import { createLogger } from '../../src/logger.js'
import { createDomain } from '../../src/modules/domains/service.js'
import { generateProjectKeys, storeProjectKeys } from '../../src/modules/projects/keys.js'
import { createJobQueues, startWorker } from '../../src/worker.js'
import { openOwnDatabase } from './own-database.js'
import { preloadStatementStats } from './statement-stats.js'

export type InProcessServer = {
  ctx: AppContext
  /** The listening API, e.g. http://127.0.0.1:PORT */
  base: string
  /** Stops the server and its worker, and drops what the run made (its database on a server, its data dir). */
  close(): Promise<void>
}

/**
 * The whole app (API and worker, as `start` runs them) in this process, listening on loopback, for benchmarks that
 * also call services directly: on an embedded PostgreSQL in a temporary directory, or on a database of its own on
 * DATABASE_URL's server. `env` adds to (and overrides) the environment, as for the CLI.
 */
export async function startInProcessServer(
  env: Record<string, string>,
  options: { statementStats?: boolean } = {},
): Promise<InProcessServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
  const database = await openOwnDatabase()
  const config = loadConfig({ ...process.env, ...database.env, DATA_DIR: dataDir, PORT: '0', ...env })
  let ctx = await createAppContext(config, createLogger(config), 'all')
  if (options.statementStats && !config.databaseUrl) {
    // pg_stat_statements loads when PostgreSQL starts: set it, then start the embedded cluster again.
    await preloadStatementStats(ctx.db)
    await ctx.close()
    ctx = await createAppContext(config, createLogger(config), 'all')
  }
  const app = await buildServer(ctx)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  await createJobQueues(ctx)
  const worker = await startWorker(ctx)
  return {
    ctx,
    base,
    async close() {
      await app.close()
      await worker.stop()
      await ctx.close()
      await database.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A new project whose sender domain `domain` is verified, as if its DNS records had been published. */
export async function addSendingProject(ctx: AppContext, name: string, domain: string) {
  const id = randomUUID()
  const keys = generateProjectKeys()
  const [project] = await ctx.db
    .insert(projects)
    .values({ id, name, ...storeProjectKeys(ctx.config.secret, id, keys) })
    .returning()
  if (!project) throw new Error('no project')
  const added = await createDomain(ctx.db, ctx.config, project.id, { domain })
  await ctx.db.execute(sql`UPDATE domains SET status = 'VERIFIED', verified_at = now() WHERE id = ${added.id}`)
  return { ...project, ...keys }
}
