import type { ExtractTablesWithRelations } from 'drizzle-orm'
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import type { PgTransaction } from 'drizzle-orm/pg-core'
import pg from 'pg'
import { surviveLostConnections } from './connection-loss.js'
import * as schema from './schema/index.js'

export type Database = NodePgDatabase<typeof schema>
export type Transaction = PgTransaction<NodePgQueryResultHKT, typeof schema, ExtractTablesWithRelations<typeof schema>>
/** Either the pool or an open transaction: services accept both so callers can compose them. */
export type Executor = Database | Transaction

export type DatabaseHandle = {
  pool: pg.Pool
  db: Database
  close(): Promise<void>
}

export function connectDatabase(url: string, options: { maxConnections?: number } = {}): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 20,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  })
  // A client losing its server, idle or checked out, must neither crash the process nor leave the pool; the next
  // query connects again.
  surviveLostConnections(pool)
  const db = drizzle({ client: pool, schema, casing: 'snake_case' })
  return { pool, db, close: () => pool.end() }
}
