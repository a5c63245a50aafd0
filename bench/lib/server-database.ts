import { setTimeout as delay } from 'node:timers/promises'
import { connectDatabase, type DatabaseHandle } from '../../src/db/client.js'
import { clusterDirOf, readPostgresPassword, readPostmasterPid } from '../../src/db/embedded.js'
import { preloadStatementStats } from './statement-stats.js'

/**
 * The URL of the database a bench server (`startBenchServer`) uses: its `DATABASE_URL` when it was given one, else
 * the embedded cluster it started in `dataDir` (found as `mailroom backup` finds it), once it accepts connections.
 */
export async function serverDatabaseUrl(dataDir: string, serverEnv: Record<string, string>): Promise<string> {
  if (serverEnv.DATABASE_URL) return serverEnv.DATABASE_URL
  for (let waitedMs = 0; ; waitedMs += 100) {
    const postmaster = readPostmasterPid(clusterDirOf(dataDir))
    if (postmaster?.ready) {
      const password = encodeURIComponent(readPostgresPassword(dataDir))
      return `postgres://postgres:${password}@127.0.0.1:${postmaster.port}/mailroom`
    }
    if (waitedMs > 30_000) throw new Error(`no running PostgreSQL in ${dataDir}`)
    await delay(100)
  }
}

/**
 * A connection to that database, for generating rows set-based beside the server and for reading what it did,
 * without sharing its process.
 */
export async function openServerDatabase(
  dataDir: string,
  serverEnv: Record<string, string>,
  maxConnections = 4,
): Promise<DatabaseHandle> {
  return connectDatabase(await serverDatabaseUrl(dataDir, serverEnv), { maxConnections })
}

/**
 * A bench server (`start`) and a connection to its database; with `withStatementStats` it is started a second time,
 * with pg_stat_statements loaded (the library loads only when PostgreSQL starts).
 */
export async function startWithDatabase<Server extends { stop(): Promise<void> }>(
  start: () => Promise<Server>,
  dataDir: string,
  serverEnv: Record<string, string>,
  withStatementStats: boolean,
): Promise<{ server: Server; database: DatabaseHandle }> {
  const server = await start()
  const database = await openServerDatabase(dataDir, serverEnv)
  if (!withStatementStats) return { server, database }
  await preloadStatementStats(database.db)
  await database.close()
  await server.stop()
  return { server: await start(), database: await openServerDatabase(dataDir, serverEnv) }
}
