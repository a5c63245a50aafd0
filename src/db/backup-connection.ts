import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { BackupError } from './backup-format.js'
import { DataDirLockedError } from './data-dir-lock.js'
import { startEmbeddedPostgres } from './embedded.js'

export type ClusterSession = { client: pg.Client; close(): Promise<void> }

/** postmaster.pid: pid, data dir, start time, port, socket directory, listen address, shared memory key, status. */
function readPostmasterPid(clusterDir: string): { port: number; host: string; ready: boolean } | undefined {
  const file = path.join(clusterDir, 'postmaster.pid')
  if (!existsSync(file)) return undefined
  const lines = readFileSync(file, 'utf8').split('\n')
  const port = Number.parseInt(lines[3] ?? '', 10)
  if (!Number.isInteger(port)) return undefined
  const socketDir = lines[4]?.trim() ?? ''
  const listen = lines[5]?.trim().split(',')[0] ?? ''
  const host = socketDir || (listen && listen !== '*' ? listen : '127.0.0.1')
  return { port, host, ready: lines[7]?.trim() === 'ready' }
}

/** The PostgreSQL of a running `mailroom start`, found through the files it keeps in DATA_DIR. */
async function connectRunning(dataDir: string): Promise<pg.Client> {
  const clusterDir = path.join(dataDir, 'postgres')
  // The server may still be starting its PostgreSQL.
  for (let waitedMs = 0; ; waitedMs += 200) {
    const postmaster = readPostmasterPid(clusterDir)
    if (postmaster?.ready) {
      const password = readFileSync(path.join(dataDir, 'postgres-password'), 'utf8').trim()
      const client = new pg.Client({ ...postmaster, user: 'postgres', password, database: 'postgres' })
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
