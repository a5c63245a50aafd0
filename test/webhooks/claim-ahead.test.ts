import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { eventually } from '../helpers/emails.js'
import { publish } from '../helpers/events.js'
import { callAs, createAccount } from '../helpers/factories.js'
import { type HttpReceiver, startHttpReceiver } from '../helpers/http-receiver.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { verifyDelivery } from '../helpers/webhook-receiver.js'

const servers: TestServer[] = []
let hooks: HttpReceiver | undefined
afterAll(async () => {
  await hooks?.close()
  for (const server of servers) await server.close()
})

describe('messages a worker claims ahead of its endpoint’s 16 slots', () => {
  it('wait while 16 are in flight, go back at once when it stops, and another worker sends each once', async () => {
    const first = await startTestServer()
    const owner = await createAccount(first)
    const receiver = await startHttpReceiver()
    hooks = receiver
    receiver.respondWith(() => ({ status: 200, body: 'slow', delayMs: 1_500 }))
    const endpoint = (
      await callAs(first, owner)('POST', '/webhooks', { url: receiver.url, eventTypes: ['ahead.*'] })
    ).json()
    const total = 40
    await publish(
      first,
      Array.from({ length: total }, (_, n) => ({
        projectId: owner.project.id,
        contactId: null,
        name: 'ahead.check',
        data: { n },
      })),
    )
    const leased = async () => {
      const result = await first.ctx.db.execute<{ leased: number }>(sql`
        SELECT count(*)::int AS leased FROM webhook_messages
        WHERE endpoint_id = ${endpoint.id} AND status = 'PENDING' AND leased_until > now()`)
      return result.rows[0]?.leased ?? 0
    }
    // All of them claimed in one go, 16 sent.
    await vi.waitFor(async () => expect(await leased()).toBe(total), eventually)
    await receiver.waitForRequests(16)
    expect(receiver.requests).toHaveLength(16)

    // Stopping waits for the 16 answers; the 24 held go back without waiting out their 30 s lease.
    await first.close()
    const states = await (async () => {
      const second = await startTestServer({ databaseUrl: first.config.databaseUrl, worker: false })
      servers.push(second)
      const result = await second.ctx.db.execute<{ status: string; held: boolean; n: number }>(sql`
        SELECT status, leased_until IS NOT NULL AS held, count(*)::int AS n FROM webhook_messages
        WHERE endpoint_id = ${endpoint.id} GROUP BY 1, 2 ORDER BY 1, 2`)
      return result.rows
    })()
    expect(states).toEqual([
      { status: 'DELIVERED', held: false, n: 16 },
      { status: 'PENDING', held: false, n: total - 16 },
    ])

    receiver.respondWith(() => ({ status: 200, body: 'ok' }))
    const takeover = await startTestServer({ databaseUrl: first.config.databaseUrl })
    servers.push(takeover)
    const started = performance.now()
    const requests = await receiver.waitForRequests(total)
    expect(performance.now() - started).toBeLessThan(10_000)
    const ids = new Set(requests.map((request) => request.headers['webhook-id']))
    expect(ids.size).toBe(total)
    const numbers = requests.map(
      (request) => (verifyDelivery(endpoint.secret, request) as { data: { event: { n: number } } }).data.event.n,
    )
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, n) => n))
    await vi.waitFor(async () => {
      const page = (await callAs(takeover, owner)('GET', `/webhooks/${endpoint.id}/messages?status=PENDING`)).json()
      expect(page.total).toBe(0)
    }, eventually)
    expect(receiver.requests).toHaveLength(total)
  })
})
