import { readFileSync } from 'node:fs'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Executor } from '../../db/client.js'
import { migrationsFolder } from '../../db/migrate.js'

const journal = z.object({ entries: z.array(z.object({ tag: z.string(), when: z.number() })).min(1) })

/** The newest migration this build ships: drizzle records each applied one by its journal `when`. */
function latestShippedMigration(): { tag: string; when: number } {
  const { entries } = journal.parse(
    JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')),
  )
  return entries.reduce((latest, entry) => (entry.when > latest.when ? entry : latest))
}

const latest = latestShippedMigration()

/**
 * Whether the database holds every migration this build ships. drizzle's migrator applies the ones newer than
 * the newest it recorded, so comparing that one with the journal's newest is enough. Throws when the database
 * cannot be asked.
 */
export async function migrationsApplied(db: Executor): Promise<boolean> {
  // drizzle creates its table with the first migration: a database never migrated has none.
  const table = await db.execute<{ present: boolean }>(
    sql`SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`,
  )
  if (!table.rows[0]?.present) return false
  const result = await db.execute<{ newest: number | null }>(
    sql`SELECT max(created_at)::float8 AS newest FROM drizzle.__drizzle_migrations`,
  )
  return (result.rows[0]?.newest ?? 0) >= latest.when
}
