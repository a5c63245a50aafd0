import { sql } from 'drizzle-orm'
import type pg from 'pg'
import type { Database } from '../../db/client.js'
import { latestMigrationApplied } from '../../db/migrate.js'

// A probe must answer before its caller's timeout even while the database hangs (a stopped host, a full pool).
const databaseTimeoutMs = 2_000

function withinTimeout<T>(work: Promise<T>, fallback: T): Promise<T> {
  const timeout = new Promise<T>((resolve) => setTimeout(() => resolve(fallback), databaseTimeoutMs).unref())
  return Promise.race([work.catch(() => fallback), timeout])
}

/** Liveness: the database answers a `SELECT 1`. */
export function databaseReachable(db: Database): Promise<boolean> {
  return withinTimeout(
    db.execute(sql`SELECT 1`).then(() => true),
    false,
  )
}

export type Readiness = {
  ready: boolean
  database: 'up' | 'down'
  /** `unknown` while the database cannot be asked. */
  migrations: 'applied' | 'pending' | 'unknown'
}

/** Readiness: the database answers and holds every migration this build ships, so requests can be served. */
export async function checkReadiness(pool: pg.Pool): Promise<Readiness> {
  const applied = await withinTimeout<boolean | undefined>(latestMigrationApplied(pool), undefined)
  if (applied === undefined) return { ready: false, database: 'down', migrations: 'unknown' }
  return { ready: applied, database: 'up', migrations: applied ? 'applied' : 'pending' }
}
