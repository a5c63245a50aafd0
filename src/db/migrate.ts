import { fileURLToPath } from 'node:url'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import type pg from 'pg'

// Resolved from the repository root so it works from both src/db and dist/db.
export const migrationsFolder = fileURLToPath(new URL('../../src/db/migrations', import.meta.url))

// Several processes may start at once against one server: one migrates while the others wait.
const migrationLockId = 0x6d61696c

export async function migrateDatabase(pool: pg.Pool): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [migrationLockId])
    await migrate(drizzle({ client }), { migrationsFolder })
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [migrationLockId]).catch(() => {})
    client.release()
  }
}
