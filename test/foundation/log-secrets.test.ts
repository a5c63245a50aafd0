import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearer, createAccount, uniqueEmail } from '../helpers/factories.js'
import { captureLog } from '../helpers/log-capture.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const log = captureLog()
let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false, config: { logLevel: 'info' }, log: log.stream })
})
afterAll(async () => {
  await server.close()
})

/** The one line logged for the failed request, found by its request id. */
function loggedFor(requestId: unknown): Record<string, unknown> {
  const line = log.lines().find((entry) => entry.reqId === requestId)
  if (!line) throw new Error(`nothing logged for request ${String(requestId)}:\n${log.text()}`)
  return line
}

const unexpectedError = {
  success: false,
  error: expect.objectContaining({ code: 'INTERNAL_ERROR', message: 'An unexpected error occurred', statusCode: 500 }),
  timestamp: expect.any(String),
}

describe('logs of failed queries carry the statement and the error code, never the values', () => {
  it('a key lookup that fails logs its statement, not the API key it looked for', async () => {
    const account = await createAccount(server)
    await server.ctx.pool.query('ALTER TABLE projects RENAME COLUMN disabled_reason TO disabled_reason_gone')
    try {
      const response = await server.app.inject({ method: 'GET', url: '/contacts', headers: bearer(account.secretKey) })
      expect(response.statusCode).toBe(500)
      expect(response.json()).toEqual(unexpectedError)
      expect(log.text()).not.toContain(account.secretKey)
      expect(log.text()).not.toContain('params')
      expect(loggedFor(response.headers['x-request-id']).err).toMatchObject({
        type: 'DrizzleQueryError',
        code: '42703',
        query: expect.stringMatching(/^SELECT .* FROM projects\s+WHERE public_key_hash = ANY/s),
      })
    } finally {
      await server.ctx.pool.query('ALTER TABLE projects RENAME COLUMN disabled_reason_gone TO disabled_reason')
    }
  })

  it('a signup that fails logs neither the address, the password nor its hash', async () => {
    const email = uniqueEmail('refused')
    const password = 'a password nobody may read'
    await server.ctx.pool.query(
      `ALTER TABLE users ADD CONSTRAINT test_refused CHECK (email NOT LIKE 'refused-%') NOT VALID`,
    )
    try {
      const response = await server.app.inject({ method: 'POST', url: '/auth/signup', payload: { email, password } })
      expect(response.statusCode).toBe(500)
      expect(response.json()).toEqual(unexpectedError)
      expect(log.text()).not.toContain(email)
      expect(log.text()).not.toContain(password)
      expect(log.text()).not.toContain('$argon2')
      expect(loggedFor(response.headers['x-request-id']).err).toMatchObject({
        type: 'DrizzleQueryError',
        code: '23514',
        query: expect.stringContaining('insert into "users"'),
      })
    } finally {
      await server.ctx.pool.query('ALTER TABLE users DROP CONSTRAINT test_refused')
    }
  })
})
