import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { cliSandbox } from '../helpers/cli-process.js'
import { createTestDatabase } from '../helpers/database.js'
import { publish } from '../helpers/events.js'
import { callAs, createAccount } from '../helpers/factories.js'
import { type HttpReceiver, startHttpReceiver } from '../helpers/http-receiver.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { verifyDelivery } from '../helpers/webhook-receiver.js'

const { start, dataDir } = cliSandbox()

/**
 * 20 batches of the bus (500 events each), each committing its webhook messages with its position: the kill,
 * at the first delivery seen, lands with batches still to dispatch.
 */
const total = 10_000

describe('a worker killed while it dispatches events to webhooks', () => {
  let api: TestServer | undefined
  let hooks: HttpReceiver | undefined
  afterAll(async () => {
    await hooks?.close()
    await api?.close()
  })

  it('loses no event: every one is delivered once another worker takes over', async () => {
    const databaseUrl = await createTestDatabase()
    api = await startTestServer({ databaseUrl, worker: false })
    const server = api
    hooks = await startHttpReceiver()
    const receiver = hooks
    const owner = await createAccount(server)
    const endpoint = (
      await callAs(server, owner)('POST', '/webhooks', { url: receiver.url, eventTypes: ['crash.*'] })
    ).json()
    const env = {
      DATABASE_URL: databaseUrl,
      // The API's secret: the workers open the endpoint's sealed signing secret with it.
      SECRET: server.ctx.config.secret,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // The least lease: the dead worker's attempts in flight are due again 11 s after they were claimed.
      WEBHOOK_LEASE_SECONDS: '11',
      LOG_LEVEL: 'info',
    }
    const first = start('worker', { ...env, DATA_DIR: dataDir('mailroom-webhook-crash-') })
    await first.waitForOutput('worker started', 60_000)

    await publish(
      server,
      Array.from({ length: total }, (_, n) => ({
        projectId: owner.project.id,
        contactId: null,
        name: 'crash.check',
        data: { n },
      })),
    )
    await receiver.waitForRequests(1, 60_000)
    await first.stop('SIGKILL')

    // What the bus handed out and the messages it made moved together: no event past the position has one, and
    // every event before it has exactly one.
    const state = await server.ctx.db.execute<{ dispatched: number; messages: number; distinct_events: number }>(sql`
      SELECT
        (SELECT count(*)::int FROM events AS e, event_bus_positions AS p
          WHERE e.project_id = ${owner.project.id} AND (e.tx_id, e.id) <= (p.tx_id, p.event_id)) AS dispatched,
        (SELECT count(*)::int FROM webhook_messages WHERE endpoint_id = ${endpoint.id}) AS messages,
        (SELECT count(DISTINCT event_id)::int FROM webhook_messages WHERE endpoint_id = ${endpoint.id}) AS distinct_events`)
    const atKill = state.rows[0]
    expect(atKill?.messages).toBe(atKill?.dispatched)
    expect(atKill?.distinct_events).toBe(atKill?.dispatched)
    expect(atKill?.dispatched, 'the kill came after the whole dispatch; nothing was proven').toBeLessThan(total)

    const second = start('worker', { ...env, DATA_DIR: dataDir('mailroom-webhook-crash-') })
    await second.waitForOutput('worker started', 60_000)
    const deliveredIds = () => new Set(receiver.requests.map((request) => request.headers['webhook-id']))
    await vi.waitFor(() => expect(deliveredIds().size).toBe(total), { timeout: 120_000, interval: 250 })
    await vi.waitFor(
      async () => {
        const pending = await server.ctx.db.execute<{ pending: number }>(sql`
          SELECT count(*)::int AS pending FROM webhook_messages WHERE endpoint_id = ${endpoint.id} AND status <> 'DELIVERED'`)
        expect(pending.rows[0]?.pending).toBe(0)
      },
      { timeout: 30_000, interval: 250 },
    )
    expect(await second.stop('SIGTERM')).toBe(0)

    // At least once: an attempt the kill cut short may have arrived before; every event came, each verified.
    const numbers = new Set(
      receiver.requests.map(
        (request) => (verifyDelivery(endpoint.secret, request) as { data: { event: { n: number } } }).data.event.n,
      ),
    )
    expect(numbers.size).toBe(total)
    expect(receiver.requests.length - total).toBeLessThanOrEqual(16)
  }, 240_000)
})
