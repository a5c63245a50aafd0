import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildServer } from '../../src/app.js'
import { type AppContext, createAppContext } from '../../src/context.js'
import type { App } from '../../src/http/app-type.js'
import { createLogger } from '../../src/logger.js'
import { eventually } from '../helpers/emails.js'
import { bearer } from '../helpers/factories.js'
import { startTestServer, type TestServer, testConfig } from '../helpers/server.js'
import { type StoppablePostgres, startStoppablePostgres } from '../helpers/stoppable-postgres.js'
import { parseSamples, sampleValue } from '../metrics/prometheus-text.js'

const metricsToken = 'readiness-metrics-token-0123456789'
const ready = { status: 'ready', database: 'up', migrations: 'applied' }

describe('GET /health/ready while PostgreSQL stops and starts again', () => {
  let postgres: StoppablePostgres
  let ctx: AppContext
  let app: App
  let dataDir: string

  beforeAll(async () => {
    postgres = await startStoppablePostgres()
    dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-readiness-'))
    const config = testConfig({
      dataDir,
      databaseUrl: postgres.url,
      metrics: { token: metricsToken, port: undefined, host: '127.0.0.1' },
    })
    ctx = await createAppContext(config, createLogger(config), 'api')
    app = await buildServer(ctx)
  })
  afterAll(async () => {
    await app?.close()
    await ctx?.close()
    await postgres?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const get = (url: string) => app.inject({ method: 'GET', url, headers: bearer(metricsToken) })

  it('answers 503 at once while the database is down, 200 once it is back; /health stays a liveness check', async () => {
    const up = await get('/health/ready')
    expect(up.statusCode).toBe(200)
    expect(up.json()).toEqual(ready)
    expect((await get('/health')).json()).toEqual({ status: 'ok', database: 'up' })

    await postgres.stop()
    const started = Date.now()
    const down = await get('/health/ready')
    expect(Date.now() - started).toBeLessThan(2_500)
    expect(down.statusCode).toBe(503)
    expect(down.json()).toEqual({ status: 'unavailable', database: 'down', migrations: 'unknown' })
    const liveness = await get('/health')
    expect(liveness.statusCode).toBe(503)
    expect(liveness.json()).toEqual({ status: 'unavailable', database: 'down' })
    // Metrics still answer, and say the database did not.
    const metrics = await get('/metrics')
    expect(metrics.statusCode).toBe(200)
    expect(sampleValue(parseSamples(metrics.body), 'mailroom_database_up')).toBe(0)

    await postgres.start()
    await vi.waitFor(async () => {
      const back = await get('/health/ready')
      expect(back.statusCode).toBe(200)
      expect(back.json()).toEqual(ready)
    }, eventually)
    expect(sampleValue(parseSamples((await get('/metrics')).body), 'mailroom_database_up')).toBe(1)
  })
})

describe('GET /health/ready and migrations', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ worker: false })
  })
  afterAll(async () => {
    await server.close()
  })

  it('answers 503 while the newest migration of this build is not applied, 200 once it is', async () => {
    const newest = await server.ctx.pool.query<{ hash: string; created_at: string }>(
      'DELETE FROM drizzle.__drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM drizzle.__drizzle_migrations) RETURNING hash, created_at',
    )
    const removed = newest.rows[0]
    expect(removed).toBeDefined()

    const pending = await fetch(`${server.url}/health/ready`)
    expect(pending.status).toBe(503)
    expect(await pending.json()).toEqual({ status: 'unavailable', database: 'up', migrations: 'pending' })
    expect((await fetch(`${server.url}/health`)).status).toBe(200)

    await server.ctx.pool.query('INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)', [
      removed?.hash,
      removed?.created_at,
    ])
    const applied = await fetch(`${server.url}/health/ready`)
    expect(applied.status).toBe(200)
    expect(await applied.json()).toEqual(ready)
  })

  it('answers 503 on a database that was never migrated', async () => {
    await server.ctx.pool.query('ALTER TABLE drizzle.__drizzle_migrations RENAME TO __drizzle_migrations_aside')
    try {
      const response = await fetch(`${server.url}/health/ready`)
      expect(response.status).toBe(503)
      expect(await response.json()).toEqual({ status: 'unavailable', database: 'up', migrations: 'pending' })
    } finally {
      await server.ctx.pool.query('ALTER TABLE drizzle.__drizzle_migrations_aside RENAME TO __drizzle_migrations')
    }
  })
})
