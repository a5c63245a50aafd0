import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
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

/**
 * One PostgreSQL for the run: the server named by DATABASE_URL, or an embedded one in a temporary directory.
 * A migrated template database is made once; each test file clones it (CREATE DATABASE … TEMPLATE).
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
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
  const boss = await startBoss(templateUrl, createLogger({ logLevel: 'silent' }), { worker: false })
  await boss.stop({ graceful: false })

  project.provide('adminUrl', adminUrl)
  project.provide('templateDatabase', templateDatabase)

  return async () => {
    const clones = await adminQuery(
      adminUrl,
      `SELECT datname FROM pg_database WHERE datname LIKE '${templateDatabase}%'`,
    )
    for (const row of clones.rows as { datname: string }[]) {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`)
    }
    await embedded?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  }
}
