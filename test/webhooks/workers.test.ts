import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { eventually } from '../helpers/emails.js'
import { publish } from '../helpers/events.js'
import { type Account, callAs, createAccount } from '../helpers/factories.js'
import { type HttpReceiver, startHttpReceiver } from '../helpers/http-receiver.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { verifyDelivery } from '../helpers/webhook-receiver.js'

let first: TestServer
let second: TestServer
let owner: Account
let hooks: HttpReceiver

beforeAll(async () => {
  first = await startTestServer()
  // A second worker process's share: its own pool, loops and in-flight attempts on the same database.
  second = await startTestServer({ databaseUrl: first.config.databaseUrl })
  owner = await createAccount(first)
  hooks = await startHttpReceiver()
})
afterAll(async () => {
  await hooks.close()
  await second.close()
  await first.close()
})

describe('two workers', () => {
  it('share the messages without sending any twice', async () => {
    const endpoint = (
      await callAs(first, owner)('POST', '/webhooks', { url: hooks.url, eventTypes: ['share.*'] })
    ).json()
    const total = 60
    // Published through both, so both dispatchers and both delivery loops are woken.
    for (let n = 0; n < total; n += 10) {
      const on = n % 20 === 0 ? first : second
      await publish(
        on,
        Array.from({ length: 10 }, (_, k) => ({
          projectId: owner.project.id,
          contactId: null,
          name: 'share.check',
          data: { n: n + k },
        })),
      )
    }
    const requests = await hooks.waitForRequests(total)
    await vi.waitFor(async () => {
      const page = (await callAs(first, owner)('GET', `/webhooks/${endpoint.id}/messages?status=PENDING`)).json()
      expect(page.total).toBe(0)
    }, eventually)
    expect(hooks.requests).toHaveLength(total)
    const ids = new Set(requests.map((request) => request.headers['webhook-id']))
    expect(ids.size).toBe(total)
    const numbers = requests.map(
      (request) => (verifyDelivery(endpoint.secret, request) as { data: { event: { n: number } } }).data.event.n,
    )
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, n) => n))
  })
})
