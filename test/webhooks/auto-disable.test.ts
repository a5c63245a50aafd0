import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { eventually } from '../helpers/emails.js'
import { publish } from '../helpers/events.js'
import { type Account, callAs, createAccount } from '../helpers/factories.js'
import { type HttpReceiver, startHttpReceiver } from '../helpers/http-receiver.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { systemEmailsTo, waitForSystemEmail } from '../helpers/system-mail.js'
import { verifyDelivery } from '../helpers/webhook-receiver.js'

let server: TestServer
let owner: Account
let dead: HttpReceiver
let watcher: HttpReceiver

/** Days shortened to a fraction of a second: an endpoint failing for 300 ms straight is disabled. */
const disableAfterMs = 300

beforeAll(async () => {
  server = await startTestServer({
    config: { webhooks: { retryScheduleMs: [50, 50, 50, 50, 50, 50], disableAfterMs, logRetentionDays: 30 } },
  })
  owner = await createAccount(server)
  dead = await startHttpReceiver()
  dead.respondWith(() => ({ status: 500, body: 'gone' }))
  watcher = await startHttpReceiver()
})
afterAll(async () => {
  await dead.close()
  await watcher.close()
  await server.close()
})

describe('an endpoint that keeps failing', () => {
  it('is disabled with a webhook.disabled event, then receives nothing more', async () => {
    const call = callAs(server, owner)
    const failing = (await call('POST', '/webhooks', { url: dead.url, eventTypes: ['order.*'] })).json()
    const listening = (await call('POST', '/webhooks', { url: watcher.url, eventTypes: ['webhook.disabled'] })).json()
    await publish(server, [{ projectId: owner.project.id, contactId: null, name: 'order.paid', data: { total: 5 } }])

    const [delivery] = await watcher.waitForRequests(1)
    if (!delivery) throw new Error('no webhook.disabled delivery')
    const payload = verifyDelivery(listening.secret, delivery)
    expect(payload).toEqual({
      type: 'webhook.disabled',
      timestamp: expect.any(String),
      data: { event: { webhookId: failing.id, url: `${dead.url}/`, failingSince: expect.any(String) } },
    })
    const endpoint = (await call('GET', `/webhooks/${failing.id}`)).json()
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: 'failing', failingSince: expect.any(String) })
    // Disabled after failing for the set time, not after the first failure.
    expect(dead.requests.length).toBeGreaterThan(1)
    const sinceFirst = Date.parse(endpoint.updatedAt) - Date.parse(endpoint.failingSince)
    expect(sinceFirst).toBeGreaterThanOrEqual(disableAfterMs)

    // Each owner is told by account mail, once.
    const notice = await waitForSystemEmail(server, owner.email)
    expect(notice.subject).toBe('A webhook of Test project was disabled')
    expect(notice.text).toContain(`${dead.url}/`)
    expect(notice.link).toBe(`${server.config.publicUrl}/app/webhooks`)

    const attemptsBefore = dead.requests.length
    await publish(server, [{ projectId: owner.project.id, contactId: null, name: 'order.refunded', data: {} }])
    await vi.waitFor(async () => {
      const list = (await call('GET', `/webhooks/${listening.id}/messages`)).json()
      expect(list.data).toHaveLength(1)
    }, eventually)
    // The message being retried when it was disabled waits; the new event made none for it.
    const messages = (await call('GET', `/webhooks/${failing.id}/messages`)).json().data
    expect(messages.map((message: { eventType: string }) => message.eventType)).toEqual(['order.paid'])
    expect(dead.requests.length).toBe(attemptsBefore)
    expect(await systemEmailsTo(server, owner.email)).toHaveLength(1)

    // Enabled again by hand, the streak starts over.
    const enabled = (await call('PATCH', `/webhooks/${failing.id}`, { enabled: true })).json()
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null, failingSince: null })
  })
})
