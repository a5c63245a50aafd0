import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import type pg from 'pg'
import { z } from 'zod'

// Resolved from the repository root so it works from both src/db and dist/db.
const migrationsFolder = fileURLToPath(new URL('../../src/db/migrations', import.meta.url))

// Several processes may start at once against one server: one migrates while the others wait.
const migrationLockId = 0x6d61696c

const journal = z.object({ entries: z.array(z.object({ tag: z.string(), when: z.number() })).min(1) })

/** The newest migration this build ships: drizzle records each applied one by its journal `when`. */
function readLatestShippedMigration(): { tag: string; when: number } {
  const { entries } = journal.parse(
    JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')),
  )
  return entries.reduce((latest, entry) => (entry.when > latest.when ? entry : latest))
}

const latestShippedMigration = readLatestShippedMigration()

/**
 * Whether the database records the newest migration this build ships: drizzle applies them in order, in one
 * transaction, so that one is enough. One statement; a database never migrated has no table to read (false).
 */
export async function latestMigrationApplied(client: Pick<pg.Pool, 'query'>): Promise<boolean> {
  try {
    const result = await client.query<{ newest: number | null }>(
      'SELECT max(created_at)::float8 AS newest FROM drizzle.__drizzle_migrations',
    )
    return (result.rows[0]?.newest ?? 0) >= latestShippedMigration.when
  } catch (err) {
    // undefined_table, invalid_schema_name: drizzle creates both with the first migration.
    const code = err instanceof Error && 'code' in err ? err.code : undefined
    if (code === '42P01' || code === '3F000') return false
    throw err
  }
}

/**
 * Applies the migrations this build ships that the database lacks. A restart finds them all applied and asks one
 * question instead of running drizzle's migrator (which reads and hashes every migration file and creates its
 * schema and table again, behind a lock).
 */
export async function migrateDatabase(pool: pg.Pool): Promise<void> {
  if (await latestMigrationApplied(pool)) return
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [migrationLockId])
    await migrate(drizzle({ client }), { migrationsFolder })
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [migrationLockId]).catch(() => {})
    client.release()
  }
}
