import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import type { AppContext } from '../../src/context.js'
import { AppError } from '../../src/errors.js'
import type { App } from '../../src/http/app-type.js'
import { idempotencyClaim } from '../../src/modules/idempotency/header.js'
import { expireIdempotencyKeysJob } from '../../src/modules/idempotency/jobs.js'
import { claimIdempotencyKey } from '../../src/modules/idempotency/service.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
let account: Account

/** A route that does durable work guarded by the Idempotency-Key mechanism, as /v1/send and /v1/track do. */
function effectRoute(app: App, ctx: AppContext): void {
  const body = z.object({ value: z.string(), fail: z.boolean().optional(), slowMs: z.number().optional() })
  app.post('/effect', { config: { auth: 'track' }, schema: { body } }, async (request) => {
    const claim = idempotencyClaim(request, ctx.config.idempotencyTtlHours)
    const projectId = request.project?.id ?? ''
    return ctx.db.transaction(async (tx) => {
      if (claim) await claimIdempotencyKey(tx, projectId, claim)
      if (request.body.slowMs) await tx.execute(sql`SELECT pg_sleep(${request.body.slowMs / 1000})`)
      await tx.execute(sql`INSERT INTO test_effects (project_id, value) VALUES (${projectId}, ${request.body.value})`)
      if (request.body.fail) throw new AppError('VALIDATION_ERROR', 'rejected on purpose')
      return { success: true }
    })
  })
}

beforeAll(async () => {
  server = await startTestServer({ routes: effectRoute })
  await server.ctx.pool.query('CREATE TABLE test_effects (project_id uuid, value text)')
  account = await createAccount(server)
})
afterAll(async () => {
  await server.close()
})

function send(value: string, key: string | undefined, extra: Record<string, unknown> = {}, apiKey = account.secretKey) {
  return server.app.inject({
    method: 'POST',
    url: '/effect',
    headers: { ...bearer(apiKey), ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: { value, ...extra },
  })
}

async function effects(value: string): Promise<number> {
  const result = await server.ctx.pool.query('SELECT count(*)::int AS n FROM test_effects WHERE value = $1', [value])
  return result.rows[0].n
}

describe('Idempotency-Key', () => {
  it('a reused key gets 409 IDEMPOTENCY_KEY_REUSED with the original request, and the work is done once', async () => {
    const first = await send('reuse', 'key-reuse')
    expect(first.statusCode).toBe(200)
    const second = await send('reuse', 'key-reuse')
    expect(second.statusCode).toBe(409)
    expect(second.json().error).toEqual({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'This Idempotency-Key has already been used for another request',
      statusCode: 409,
      requestId: second.headers['x-request-id'],
      details: {
        key: 'key-reuse',
        originalRequest: { method: 'POST', path: '/effect' },
        originalRequestAt: expect.stringMatching(/^\d{4}-/),
        originalStatusCode: 200,
      },
      suggestion: expect.any(String),
    })
    expect(await effects('reuse')).toBe(1)
  })

  it('two concurrent requests with one key do the work once', async () => {
    const responses = await Promise.all([
      send('race', 'key-race', { slowMs: 300 }),
      send('race', 'key-race', { slowMs: 300 }),
    ])
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409])
    expect(await effects('race')).toBe(1)
  })

  it('a 4xx answer releases the key, and what it did is undone', async () => {
    const rejected = await send('release', 'key-release', { fail: true })
    expect(rejected.statusCode).toBe(422)
    expect(await effects('release')).toBe(0)
    const retried = await send('release', 'key-release')
    expect(retried.statusCode).toBe(200)
    expect(await effects('release')).toBe(1)
  })

  it('keys are scoped to the project', async () => {
    const other = await createAccount(server)
    expect((await send('scoped', 'key-shared')).statusCode).toBe(200)
    expect((await send('scoped', 'key-shared', {}, other.secretKey)).statusCode).toBe(200)
    expect(await effects('scoped')).toBe(2)
  })

  it('an expired key can be used again, and the expiry job removes expired keys', async () => {
    expect((await send('expiry', 'key-expiry')).statusCode).toBe(200)
    await server.ctx.pool.query(
      "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'key-expiry'",
    )
    expect((await send('expiry', 'key-expiry')).statusCode).toBe(200)
    expect(await effects('expiry')).toBe(2)

    await server.ctx.pool.query(
      "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'key-expiry'",
    )
    await server.ctx.boss.send(expireIdempotencyKeysJob.name, {})
    await vi.waitFor(
      async () => {
        const left = await server.ctx.pool.query("SELECT 1 FROM idempotency_keys WHERE key = 'key-expiry'")
        expect(left.rowCount).toBe(0)
      },
      { timeout: 10_000, interval: 100 },
    )
  })

  it('keeps a key for the configured time', async () => {
    expect((await send('ttl', 'key-ttl')).statusCode).toBe(200)
    const row = await server.ctx.pool.query(
      "SELECT extract(epoch FROM expires_at - created_at)::int AS seconds FROM idempotency_keys WHERE key = 'key-ttl'",
    )
    expect(row.rows[0].seconds).toBe(24 * 3600)
  })

  it('rejects an empty, overlong or non-printable key with 400 and does no work', async () => {
    for (const key of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const response = await send('invalid', key)
      expect(response.statusCode, JSON.stringify(key)).toBe(400)
      expect(response.json().error.code).toBe('INVALID_IDEMPOTENCY_KEY')
    }
    expect((await send('invalid', 'k'.repeat(255))).statusCode).toBe(200)
    expect(await effects('invalid')).toBe(1)
  })
})
