import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadConfig } from '../../src/config.js'
import { type AppContext, createAppContext } from '../../src/context.js'
import { projects } from '../../src/db/schema/index.js'
import { createLogger } from '../../src/logger.js'
import { generateProjectKeys } from '../../src/modules/projects/keys.js'

export type BenchProject = { ctx: AppContext; projectId: string; close(): Promise<void> }

/**
 * An in-process API context with one new project, for benchmarks that call services directly: on an embedded
 * PostgreSQL in a temporary directory, or on DATABASE_URL when set (`npm run bench` gives each its own database).
 */
export async function openBenchProject(): Promise<BenchProject> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
  const ctx = await createAppContext(config, createLogger(config), 'api')
  const close = async () => {
    await ctx.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
  const [project] = await ctx.db
    .insert(projects)
    .values({ name: 'bench', ...generateProjectKeys() })
    .returning({ id: projects.id })
  if (!project) {
    await close()
    throw new Error('bench project insert returned nothing')
  }
  return { ctx, projectId: project.id, close }
}
