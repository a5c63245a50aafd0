import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { BackupError } from './backup-format.js'
import { absorbConnectionErrors } from './connection-loss.js'
import { DataDirLockedError } from './data-dir-lock.js'
import { clusterDirOf, readPostgresPassword, readPostmasterPid, startEmbeddedPostgres } from './embedded.js'

export type ClusterSession = { client: pg.Client; close(): Promise<void> }

/** The PostgreSQL of a running `mailroom start`, found through the files it keeps in DATA_DIR. */
async function connectRunning(dataDir: string): Promise<pg.Client> {
  // The server may still be starting its PostgreSQL.
  for (let waitedMs = 0; ; waitedMs += 200) {
    const postmaster = readPostmasterPid(clusterDirOf(dataDir))
    if (postmaster?.ready && Number.isInteger(postmaster.port)) {
      const { host, port } = postmaster
      const password = readPostgresPassword(dataDir)
      const client = new pg.Client({ host, port, user: 'postgres', password, database: 'postgres' })
      // The server's PostgreSQL may restart during a backup: its statement fails, the process lives to say so.
      absorbConnectionErrors(client)
      await client.connect()
      return client
    }
    if (waitedMs >= 30_000) {
      throw new BackupError(`The Mailroom process using ${dataDir} has no running database; try again once it is up.`)
    }
    await delay(200)
  }
}

/**
 * A session on the embedded cluster of `dataDir`: the one the running server started, or, when no server
 * runs there, one started for the backup and stopped after it.
 */
export async function openClusterSession(dataDir: string, log: (message: string) => void): Promise<ClusterSession> {
  try {
    const embedded = await startEmbeddedPostgres(dataDir, log)
    const client = new pg.Client({ connectionString: embedded.adminUrl })
    absorbConnectionErrors(client)
    try {
      await client.connect()
    } catch (err) {
      await embedded.stop()
      throw err
    }
    return {
      client,
      async close() {
        await client.end().catch(() => {})
        await embedded.stop()
      },
    }
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err
  }
  const client = await connectRunning(dataDir)
  return {
    client,
    async close() {
      await client.end().catch(() => {})
    },
  }
}
