import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { defaultJobHeartbeatSeconds } from '../src/config.js'
import { connectDatabase } from '../src/db/client.js'
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../src/db/embedded.js'
import { migrateDatabase } from '../src/db/migrate.js'
import { startBoss } from '../src/jobs/boss.js'
import { createLogger } from '../src/logger.js'
import { adminQuery, databaseUrl } from './helpers/database.js'

declare module 'vitest' {
  export interface ProvidedContext {
    adminUrl: string
    templateDatabase: string
  }
}

type RunDatabase = { adminUrl: string; templateDatabase: string; stop(): Promise<void> }

/**
 * Every project that lists this file runs its setup in the one main process; they share one database for the
 * run, started by the first and stopped by the last teardown.
 */
const shared = globalThis as { mailroomTestDatabase?: { database: Promise<RunDatabase>; users: number } }

/**
 * One PostgreSQL for the run: the server named by DATABASE_URL, or an embedded one in a temporary directory.
 * A migrated template database is made once; each test file clones it (CREATE DATABASE … TEMPLATE).
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.mailroomTestDatabase ??= { database: startRunDatabase(), users: 0 }
  const entry = shared.mailroomTestDatabase
  entry.users++
  const database = await entry.database
  project.provide('adminUrl', database.adminUrl)
  project.provide('templateDatabase', database.templateDatabase)
  return async () => {
    if (--entry.users > 0) return
    shared.mailroomTestDatabase = undefined
    await database.stop()
  }
}

async function startRunDatabase(): Promise<RunDatabase> {
  let embedded: EmbeddedDatabase | undefined
  let dataDir: string | undefined
  let adminUrl = process.env.DATABASE_URL
  if (!adminUrl) {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-test-pg-'))
    embedded = await startEmbeddedPostgres(dataDir, () => {})
    adminUrl = embedded.adminUrl
  }
  const templateDatabase = `mailroom_test_${process.pid}_${Date.now().toString(36)}`
  await adminQuery(adminUrl, `CREATE DATABASE ${templateDatabase}`)
  const templateUrl = databaseUrl(adminUrl, templateDatabase)
  const database = connectDatabase(templateUrl, { maxConnections: 2 })
  await migrateDatabase(database.pool)
  await database.close()
  const boss = await startBoss(templateUrl, createLogger({ logLevel: 'silent' }), {
    worker: false,
    jobHeartbeatSeconds: defaultJobHeartbeatSeconds,
  })
  await boss.stop({ graceful: false })

  const url = adminUrl
  return {
    adminUrl: url,
    templateDatabase,
    async stop() {
      if (embedded) {
        // The cluster goes with its directory: dropping each clone first cost a checkpoint apiece (minutes).
        await embedded.stop()
        if (dataDir) rmSync(dataDir, { recursive: true, force: true })
        return
      }
      // A shared server keeps nothing of the run. Each DROP DATABASE waits for a checkpoint; drops side by side
      // share them.
      const clones = await adminQuery(url, `SELECT datname FROM pg_database WHERE datname LIKE '${templateDatabase}%'`)
      const names = (clones.rows as { datname: string }[]).map((row) => row.datname)
      for (let start = 0; start < names.length; start += 8) {
        await Promise.all(
          names
            .slice(start, start + 8)
            .map((name) => adminQuery(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
        )
      }
    },
  }
}
