import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Config } from '../../src/config.js'
import { bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const limit = 3
const unknownKey = `sk_${'0'.repeat(64)}`

function listContacts(server: TestServer, remoteAddress: string, headers: Record<string, string>) {
  return server.app.inject({ method: 'GET', url: '/contacts', remoteAddress, headers })
}

function expectRefused(response: Awaited<ReturnType<typeof listContacts>>): void {
  expect(response.statusCode).toBe(429)
  const retryAfterSeconds = Number(response.headers['retry-after'])
  expect(retryAfterSeconds).toBeGreaterThan(0)
  expect(retryAfterSeconds).toBeLessThanOrEqual(60)
  expect(response.json()).toEqual({
    success: false,
    error: {
      code: 'RATE_LIMIT_EXCEEDED',
      message: `Too many requests with a wrong API key from this address: ${limit} per minute. Retry in ${retryAfterSeconds} seconds.`,
      statusCode: 429,
      requestId: response.headers['x-request-id'],
      details: { limit, retryAfterSeconds },
    },
    timestamp: expect.any(String),
  })
}

function startServer(config: Partial<Config> = {}, databaseUrl?: string): Promise<TestServer> {
  return startTestServer({ worker: false, databaseUrl, config: { failedAuthLimitPerMinute: limit, ...config } })
}

describe('failed authentication limit (in-process)', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  it('answers 429 with Retry-After once an address sent too many wrong keys, and refuses even a right key', async () => {
    const account = await createAccount(server)
    const address = '198.51.100.1'
    for (let i = 0; i < limit; i++) {
      const wrong = await listContacts(server, address, bearer(unknownKey))
      expect(wrong.statusCode).toBe(401)
      expect(wrong.json().error.code).toBe('INVALID_API_KEY')
    }
    // A right key is not looked up either: answering it would tell a guesser which guess was right.
    expectRefused(await listContacts(server, address, bearer(account.secretKey)))
    expectRefused(await listContacts(server, address, bearer(unknownKey)))
    // Another address is not held back by this one's failures.
    expect((await listContacts(server, '198.51.100.2', bearer(account.secretKey))).statusCode).toBe(200)
  })

  it('counts a key with a wrong prefix, length or characters, and a header that is not Bearer', async () => {
    const address = '198.51.100.3'
    const malformed = [
      { authorization: `Bearer xk_${'0'.repeat(64)}` },
      { authorization: `Bearer sk_${'0'.repeat(63)}` },
      { authorization: `Bearer sk_${'Z'.repeat(64)}` },
    ]
    expect(malformed).toHaveLength(limit)
    for (const headers of malformed) {
      const response = await listContacts(server, address, headers)
      expect(response.statusCode).toBe(401)
      expect(response.json().error.code).toBe('INVALID_API_KEY')
    }
    expectRefused(await listContacts(server, address, { authorization: 'Basic dXNlcjpwYXNz' }))

    const other = '198.51.100.4'
    for (let i = 0; i < limit; i++) {
      expect((await listContacts(server, other, { authorization: 'Basic dXNlcjpwYXNz' })).statusCode).toBe(401)
    }
    expectRefused(await listContacts(server, other, bearer(unknownKey)))
  })

  it('does not count right keys, nor requests without a key', async () => {
    const account = await createAccount(server)
    const address = '198.51.100.5'
    for (let i = 0; i < limit * 2; i++) {
      expect((await listContacts(server, address, bearer(account.secretKey))).statusCode).toBe(200)
      expect((await listContacts(server, address, {})).statusCode).toBe(401)
    }
    expect((await listContacts(server, address, bearer(account.secretKey))).statusCode).toBe(200)
  })

  it('counts the addresses of one IPv6 /64 as one client', async () => {
    const account = await createAccount(server)
    for (const host of ['a', 'b', 'c']) {
      expect((await listContacts(server, `2001:db8:1:2::${host}`, bearer(unknownKey))).statusCode).toBe(401)
    }
    expectRefused(await listContacts(server, '2001:db8:1:2:ffff::1', bearer(account.secretKey)))
    expect((await listContacts(server, '2001:db8:1:3::a', bearer(account.secretKey))).statusCode).toBe(200)
  })
})

// Shared through Redis across API processes; runs where a Redis server is given (CI sets TEST_REDIS_URL).
describe.runIf(process.env.TEST_REDIS_URL)('failed authentication limit shared through Redis', () => {
  let first: TestServer
  let second: TestServer
  beforeAll(async () => {
    const redisUrl = process.env.TEST_REDIS_URL
    first = await startServer({ redisUrl })
    second = await startServer({ redisUrl }, first.config.databaseUrl)
  })
  afterAll(async () => {
    await first?.close()
    await second?.close()
  })

  it('two API processes count one budget per address', async () => {
    const account = await createAccount(first)
    // A /64 of its own per run: the counters outlive the test in the shared Redis.
    const address = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`
    const servers = [first, second, first]
    for (const server of servers) {
      expect((await listContacts(server, address, bearer(unknownKey))).statusCode).toBe(401)
    }
    // The second process learns of the block from the count its own next failure reads.
    expect((await listContacts(second, address, bearer(unknownKey))).statusCode).toBe(401)
    expectRefused(await listContacts(second, address, bearer(account.secretKey)))
    expectRefused(await listContacts(first, address, bearer(account.secretKey)))
  })
})
