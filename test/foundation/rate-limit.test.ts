import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../../src/http/app-type.js'
import { bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const limit = 3

function limitedRoute(app: App): void {
  app.get('/limited', { config: { auth: 'secret' } }, async () => ({ ok: true }))
}

describe('rate limit (in-process)', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ routes: limitedRoute, worker: false, config: { rateLimitPerMinute: limit } })
  })
  afterAll(async () => {
    await server.close()
  })

  it('answers 429 with Retry-After and RateLimit-* headers once a project passes its limit, per project', async () => {
    const { app } = server
    // Creating the account makes requests under the user's own budget, not the project's.
    const account = await createAccount(server)
    const other = await createAccount(server)
    for (let i = 0; i < limit; i++) {
      const ok = await app.inject({ method: 'GET', url: '/limited', headers: bearer(account.secretKey) })
      expect(ok.statusCode).toBe(200)
      expect(ok.headers['ratelimit-limit']).toBe(String(limit))
      expect(ok.headers['ratelimit-remaining']).toBe(String(limit - i - 1))
    }
    const limited = await app.inject({ method: 'GET', url: '/limited', headers: bearer(account.secretKey) })
    expect(limited.statusCode).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect(limited.headers['ratelimit-remaining']).toBe('0')
    expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThan(0)
    expect(limited.json()).toEqual({
      success: false,
      error: {
        code: 'RATE_LIMIT_EXCEEDED',
        message: expect.stringContaining('3 requests per minute'),
        statusCode: 429,
        requestId: limited.headers['x-request-id'],
        details: { limit, retryAfterSeconds: expect.any(Number) },
      },
      timestamp: expect.any(String),
    })
    const otherProject = await app.inject({ method: 'GET', url: '/limited', headers: bearer(other.secretKey) })
    expect(otherProject.statusCode).toBe(200)
  })
})

// Counters shared through Redis across API processes; runs where a Redis server is given (CI sets TEST_REDIS_URL).
describe.runIf(process.env.TEST_REDIS_URL)('rate limit shared through Redis', () => {
  let first: TestServer
  let second: TestServer
  beforeAll(async () => {
    const redisUrl = process.env.TEST_REDIS_URL
    first = await startTestServer({
      routes: limitedRoute,
      worker: false,
      config: { rateLimitPerMinute: limit, redisUrl },
    })
    const databaseUrl = first.config.databaseUrl
    second = await startTestServer({
      routes: limitedRoute,
      worker: false,
      databaseUrl,
      config: { rateLimitPerMinute: limit, redisUrl },
    })
  })
  afterAll(async () => {
    await first?.close()
    await second?.close()
  })

  it('two API processes share one budget per project', async () => {
    const account = await createAccount(first)
    const servers = [first, second, first]
    for (const server of servers) {
      expect(
        (await server.app.inject({ method: 'GET', url: '/limited', headers: bearer(account.secretKey) })).statusCode,
      ).toBe(200)
    }
    const limited = await second.app.inject({ method: 'GET', url: '/limited', headers: bearer(account.secretKey) })
    expect(limited.statusCode).toBe(429)
  })

  it('answers the first request after a start: the store is connected before the server takes requests', async () => {
    const account = await createAccount(first)
    const databaseUrl = first.config.databaseUrl
    const config = { rateLimitPerMinute: limit, redisUrl: process.env.TEST_REDIS_URL }
    const third = await startTestServer({ routes: limitedRoute, worker: false, databaseUrl, config })
    try {
      const response = await third.app.inject({ method: 'GET', url: '/limited', headers: bearer(account.secretKey) })
      expect(response.statusCode).toBe(200)
    } finally {
      await third.close()
    }
  })
})

describe('login and signup rate limit', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ worker: false, config: { authRateLimitPerMinute: 2 } })
  })
  afterAll(async () => {
    await server.close()
  })

  it('limits password attempts per client address much lower than API calls', async () => {
    const attempt = () =>
      server.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { email: 'who@example.com', password: 'guess' },
      })
    expect((await attempt()).statusCode).toBe(401)
    expect((await attempt()).statusCode).toBe(401)
    const limited = await attempt()
    expect(limited.statusCode).toBe(429)
    expect(limited.json().error.code).toBe('RATE_LIMIT_EXCEEDED')
  })
})
