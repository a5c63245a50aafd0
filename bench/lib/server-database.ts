import { setTimeout as delay } from 'node:timers/promises'
import { connectDatabase, type DatabaseHandle } from '../../src/db/client.js'
import { clusterDirOf, readPostgresPassword, readPostmasterPid } from '../../src/db/embedded.js'

/**
 * A connection to the database a bench server (`startBenchServer`) uses: its `DATABASE_URL` when it was given one,
 * else the embedded cluster it started in `dataDir` (found as `mailroom backup` finds it). For generating rows
 * set-based beside the server, and for reading what it did, without sharing its process.
 */
export async function openServerDatabase(
  dataDir: string,
  serverEnv: Record<string, string>,
  maxConnections = 4,
): Promise<DatabaseHandle> {
  if (serverEnv.DATABASE_URL) return connectDatabase(serverEnv.DATABASE_URL, { maxConnections })
  for (let waitedMs = 0; ; waitedMs += 100) {
    const postmaster = readPostmasterPid(clusterDirOf(dataDir))
    if (postmaster?.ready) {
      const password = encodeURIComponent(readPostgresPassword(dataDir))
      const url = `postgres://postgres:${password}@127.0.0.1:${postmaster.port}/mailroom`
      return connectDatabase(url, { maxConnections })
    }
    if (waitedMs > 30_000) throw new Error(`no running PostgreSQL in ${dataDir}`)
    await delay(100)
  }
}
