import { existsSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { findFreePort } from '../../src/db/embedded.js'
import { cliSandbox } from '../helpers/cli-process.js'
import { createTestDatabase } from '../helpers/database.js'
import { sessionCookie, uniqueEmail } from '../helpers/factories.js'

const { start, dataDir: newDataDir } = cliSandbox()

const ready = 'Mailroom listening'

async function signupWithProject(base: string, email: string): Promise<string> {
  const signup = await fetch(`${base}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'restart password' }),
  })
  expect(signup.status).toBe(201)
  const cookie = sessionCookie(signup.headers.get('set-cookie') ?? undefined)
  const project = await fetch(`${base}/users/@me/projects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'Survives restarts' }),
  })
  expect(project.status).toBe(201)
  return ((await project.json()) as { id: string }).id
}

async function loginAndListProjects(base: string, email: string): Promise<string[]> {
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'restart password' }),
  })
  expect(login.status).toBe(200)
  const cookie = sessionCookie(login.headers.get('set-cookie') ?? undefined)
  const projects = await fetch(`${base}/users/@me/projects`, { headers: { cookie } })
  return ((await projects.json()) as { id: string }[]).map((project) => project.id)
}

describe('embedded PostgreSQL', () => {
  it('starts on its own database, keeps the data across a stop, a crash and a restart, and locks the data dir', async () => {
    const dataDir = newDataDir('mailroom-lifecycle-')
    const port = String(await findFreePort())
    const env = { DATA_DIR: dataDir, PORT: port }
    const base = `http://127.0.0.1:${port}`
    const email = uniqueEmail('restart')

    const first = start('start', env)
    await first.waitForOutput(ready, 60_000)
    expect((await fetch(`${base}/health`)).status).toBe(200)
    const projectId = await signupWithProject(base, email)

    const intruder = start('start', { ...env, PORT: String(await findFreePort()) })
    expect(await intruder.exited).toBe(1)
    expect(intruder.output()).toContain(`The data directory ${dataDir} is in use by another Mailroom process`)

    expect(await first.stop('SIGTERM')).toBe(0)

    const second = start('start', env)
    await second.waitForOutput(ready)
    expect(await loginAndListProjects(base, email)).toEqual([projectId])

    // A crash leaves a stale lock and an orphaned postmaster behind; the next start must recover from both.
    await second.stop('SIGKILL')
    const third = start('start', env)
    await third.waitForOutput(ready)
    expect(await loginAndListProjects(base, email)).toEqual([projectId])
    expect(await third.stop('SIGTERM')).toBe(0)
  }, 120_000)

  it('stops its PostgreSQL again when it cannot listen, and starts once the port is free', async () => {
    const dataDir = newDataDir('mailroom-port-taken-')
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = String((blocker.address() as AddressInfo).port)
    try {
      const failed = start('start', { DATA_DIR: dataDir, PORT: port })
      expect(await failed.exited).toBe(1)
      expect(failed.output()).toContain('EADDRINUSE')
      // The postmaster removes its pid file when it stops; an orphan would keep it.
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false)
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
    const retried = start('start', { DATA_DIR: dataDir, PORT: port })
    await retried.waitForOutput(ready, 60_000)
    expect(await retried.stop('SIGTERM')).toBe(0)
  }, 120_000)

  it('a SIGTERM while it starts stops it once started, its PostgreSQL with it', async () => {
    const dataDir = newDataDir('mailroom-stopped-starting-')
    const starting = start('start', { DATA_DIR: dataDir, PORT: String(await findFreePort()) })
    // Logged before PostgreSQL is even launched: the signal lands while the cluster and the modules come up.
    await starting.waitForOutput('creating the embedded PostgreSQL cluster', 60_000)
    expect(await starting.stop('SIGTERM')).toBe(0)
    expect(starting.output()).toContain(ready)
    expect(starting.output()).toContain('shutting down')
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false)
  }, 120_000)
})

describe('separate roles on one PostgreSQL server', () => {
  it('migrate, then an api process and a worker process share the database', async () => {
    const databaseUrl = await createTestDatabase()
    const port = String(await findFreePort())
    const dataDir = newDataDir('mailroom-roles-')
    const env = { DATABASE_URL: databaseUrl, PORT: port, DATA_DIR: dataDir }

    const migrate = start('migrate', env)
    expect(await migrate.exited).toBe(0)
    expect(migrate.output()).toContain('migrations applied')

    const api = start('api', env)
    const worker = start('worker', env)
    await Promise.all([api.waitForOutput(ready), worker.waitForOutput('worker started')])
    const base = `http://127.0.0.1:${port}`
    const projectId = await signupWithProject(base, uniqueEmail('roles'))
    expect(projectId).toMatch(/^[0-9a-f-]{36}$/)
    expect(worker.output()).not.toContain(ready)

    expect(await api.stop('SIGTERM')).toBe(0)
    expect(await worker.stop('SIGTERM')).toBe(0)
  }, 120_000)
})
