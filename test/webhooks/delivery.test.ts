import { randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { eventually } from '../helpers/emails.js'
import { emailEvent, publish, waitForDispatch } from '../helpers/events.js'
import { type Account, callAs, createAccount } from '../helpers/factories.js'
import { type HttpReceiver, startHttpReceiver } from '../helpers/http-receiver.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { verifyDelivery } from '../helpers/webhook-receiver.js'

let server: TestServer
let account: Account
const receivers: HttpReceiver[] = []

/** A shortened schedule: seven retries 100 ms apart instead of about a day. */
const retryScheduleMs = [100, 100, 100, 100, 100, 100, 100]

beforeAll(async () => {
  server = await startTestServer({
    config: { webhooks: { retryScheduleMs, disableAfterMs: 5 * 86_400_000, logRetentionDays: 30 } },
  })
  account = await createAccount(server)
})
afterEach(async () => {
  // Closed before the server, so attempts held by a receiver that never answers end at once.
  for (const receiver of receivers.splice(0)) await receiver.close()
})
afterAll(() => server.close())

async function receiver(): Promise<HttpReceiver> {
  const started = await startHttpReceiver()
  receivers.push(started)
  return started
}

type Endpoint = { id: string; secret: string }

async function createEndpoint(
  on: TestServer,
  owner: Account,
  url: string,
  eventTypes: string[] = ['*'],
  enabled = true,
): Promise<Endpoint> {
  const response = await callAs(on, owner)('POST', '/webhooks', { url, eventTypes, enabled })
  expect(response.statusCode, response.body).toBe(201)
  return response.json()
}

function customEvent(projectId: string, name: string, data: Record<string, unknown> = {}) {
  return { projectId, contactId: null, name, data }
}

async function messageDetail(on: TestServer, owner: Account, endpointId: string, messageId: string) {
  const response = await callAs(on, owner)('GET', `/webhooks/${endpointId}/messages/${messageId}`)
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

async function messages(on: TestServer, owner: Account, endpointId: string) {
  const response = await callAs(on, owner)('GET', `/webhooks/${endpointId}/messages?limit=100`)
  expect(response.statusCode, response.body).toBe(200)
  return response.json().data as { id: string; status: string; eventType: string; createdAt: string }[]
}

const header = (request: HttpReceiver['requests'][number], name: string) => request.headers[name]

describe('signed delivery', () => {
  it('POSTs each matching event once, signed so that standardwebhooks verifies it, with the spec’s event object', async () => {
    const hooks = await receiver()
    const endpoint = await createEndpoint(server, account, `${hooks.url}/mailroom`, ['email.*'])
    const emailId = randomUUID()
    const sent = emailEvent(account.project.id, '', emailId, 'email.sent', { sentAt: '2030-01-01T00:00:00.000Z' })
    const [published] = await publish(server, [
      { ...sent, contactId: null },
      customEvent(account.project.id, 'signed-up'),
      customEvent(account.project.id, 'contact.subscribed'),
    ])
    const [request] = await hooks.waitForRequests(1)
    if (!request) throw new Error('no delivery')
    expect(request.method).toBe('POST')
    expect(request.url).toBe('/mailroom')
    expect(header(request, 'content-type')).toBe('application/json')
    const payload = verifyDelivery(endpoint.secret, request)
    expect(payload).toEqual({
      type: 'email.sent',
      timestamp: published?.createdAt.toISOString(),
      data: {
        event: {
          subject: 'Hello',
          from: 'hello@analytics.example.com',
          fromName: '',
          messageId: `${emailId}@analytics.example.com`,
          emailId,
          templateId: null,
          campaignId: null,
          sourceType: 'TRANSACTIONAL',
          sentAt: '2030-01-01T00:00:00.000Z',
        },
        emailId,
      },
    })
    // A signature by any other secret is refused by the reference implementation.
    expect(() => verifyDelivery(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, request)).toThrow()
    expect(() =>
      verifyDelivery(endpoint.secret, { ...request, body: request.body.replace('Hello', 'Hullo') }),
    ).toThrow()

    await waitForDispatch(server, account.project.id)
    const list = await messages(server, account, endpoint.id)
    expect(list).toEqual([expect.objectContaining({ id: header(request, 'webhook-id'), eventType: 'email.sent' })])
    const detail = await vi.waitFor(async () => {
      const found = await messageDetail(server, account, endpoint.id, list[0]?.id ?? '')
      expect(found.status).toBe('DELIVERED')
      return found
    }, eventually)
    expect(detail.attempts).toEqual([
      {
        at: expect.any(String),
        succeeded: true,
        responseStatus: 200,
        responseBody: '{"ok":true}',
        error: null,
        latencyMs: expect.any(Number),
        url: `${hooks.url}/mailroom`,
      },
    ])
    expect(hooks.requests).toHaveLength(1)
  })

  it('signs with both secrets during a rotation’s overlap, and each verifies on its own', async () => {
    const hooks = await receiver()
    const endpoint = await createEndpoint(server, account, hooks.url, ['rotation.check'])
    const rotated = (await callAs(server, account)('POST', `/webhooks/${endpoint.id}/rotate-secret`)).json()
    await publish(server, [customEvent(account.project.id, 'rotation.check', { n: 1 })])
    const [request] = await hooks.waitForRequests(1)
    if (!request) throw new Error('no delivery')
    const signatures = String(header(request, 'webhook-signature')).split(' ')
    expect(signatures).toHaveLength(2)
    for (const signature of signatures) expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    // Each secret verifies the delivery alone: a receiver still on the old one and one already on the new one.
    expect(verifyDelivery(endpoint.secret, request)).toMatchObject({
      type: 'rotation.check',
      data: { event: { n: 1 } },
    })
    expect(verifyDelivery(rotated.secret, request)).toMatchObject({ type: 'rotation.check' })
    for (const signature of signatures) {
      const alone = { ...request, headers: { ...request.headers, 'webhook-signature': signature } }
      const verifiedBy = [endpoint.secret, rotated.secret].filter((secret) => {
        try {
          verifyDelivery(secret, alone)
          return true
        } catch {
          return false
        }
      })
      expect(verifiedBy).toHaveLength(1)
    }
  })

  it('sends a test event on request', async () => {
    const hooks = await receiver()
    const endpoint = await createEndpoint(server, account, hooks.url, ['email.sent'])
    const queued = await callAs(server, account)('POST', `/webhooks/${endpoint.id}/test`)
    expect(queued.statusCode).toBe(202)
    const [request] = await hooks.waitForRequests(1)
    if (!request) throw new Error('no delivery')
    expect(header(request, 'webhook-id')).toBe(queued.json().id)
    expect(verifyDelivery(endpoint.secret, request)).toMatchObject({ type: 'webhook.test' })
  })
})

describe('retries', () => {
  it('a receiver answering 500 three times then 200 sees four attempts with one webhook-id', async () => {
    const hooks = await receiver()
    let answered = 0
    hooks.respondWith(() =>
      ++answered <= 3 ? { status: 500, body: 'down for maintenance' } : { status: 200, body: 'ok' },
    )
    const endpoint = await createEndpoint(server, account, hooks.url, ['retry.check'])
    await publish(server, [customEvent(account.project.id, 'retry.check')])
    const requests = await hooks.waitForRequests(4)
    const ids = new Set(requests.map((request) => header(request, 'webhook-id')))
    expect(ids.size).toBe(1)
    for (const request of requests)
      expect(verifyDelivery(endpoint.secret, request)).toMatchObject({ type: 'retry.check' })
    const [messageId] = ids
    const detail = await vi.waitFor(async () => {
      const found = await messageDetail(server, account, endpoint.id, String(messageId))
      expect(found.status).toBe('DELIVERED')
      return found
    }, eventually)
    expect(detail.attemptCount).toBe(4)
    expect(
      detail.attempts.map((attempt: { responseStatus: number; responseBody: string; succeeded: boolean }) => [
        attempt.responseStatus,
        attempt.responseBody,
        attempt.succeeded,
      ]),
    ).toEqual([
      [500, 'down for maintenance', false],
      [500, 'down for maintenance', false],
      [500, 'down for maintenance', false],
      [200, 'ok', true],
    ])
    expect(hooks.requests).toHaveLength(4)
    // The endpoint's failure streak ended with the success.
    expect((await callAs(server, account)('GET', `/webhooks/${endpoint.id}`)).json().failingSince).toBeNull()
  })

  it('fails a message once the schedule is used up, keeps only the first kilobyte, and a manual retry sends it again', async () => {
    const hooks = await receiver()
    hooks.respondWith(() => ({ status: 503, body: 'x'.repeat(5_000) }))
    const endpoint = await createEndpoint(server, account, hooks.url, ['exhaust.check'])
    await publish(server, [customEvent(account.project.id, 'exhaust.check')])
    const requests = await hooks.waitForRequests(retryScheduleMs.length + 1)
    const messageId = String(requests[0]?.headers['webhook-id'])
    const failed = await vi.waitFor(async () => {
      const found = await messageDetail(server, account, endpoint.id, messageId)
      expect(found.status).toBe('FAILED')
      return found
    }, eventually)
    expect(failed.attempts).toHaveLength(retryScheduleMs.length + 1)
    expect(failed.attempts[0].responseBody).toHaveLength(1_000)
    expect(failed.nextAttemptAt).toBeNull()
    expect(hooks.requests).toHaveLength(retryScheduleMs.length + 1)

    hooks.respondWith(() => ({ status: 204 }))
    const retried = await callAs(server, account)('POST', `/webhooks/${endpoint.id}/messages/${messageId}/retry`)
    expect(retried.statusCode).toBe(202)
    expect(retried.json()).toMatchObject({ id: messageId, status: 'PENDING', attemptCount: 0 })
    const [again] = (await hooks.waitForRequests(retryScheduleMs.length + 2)).slice(-1)
    if (!again) throw new Error('no retry')
    expect(header(again, 'webhook-id')).toBe(messageId)
    expect(verifyDelivery(endpoint.secret, again)).toMatchObject({ type: 'exhaust.check' })
    await vi.waitFor(async () => {
      expect((await messageDetail(server, account, endpoint.id, messageId)).status).toBe('DELIVERED')
    }, eventually)
  })
})

describe('endpoints that do not take part', () => {
  it('a disabled endpoint receives nothing, while an enabled one gets the event', async () => {
    const off = await receiver()
    const on = await receiver()
    const disabled = await createEndpoint(server, account, off.url, ['*'], false)
    const paused = await createEndpoint(server, account, off.url, ['*'])
    await callAs(server, account)('PATCH', `/webhooks/${paused.id}`, { enabled: false })
    await createEndpoint(server, account, on.url, ['disabled.check'])
    await publish(server, [customEvent(account.project.id, 'disabled.check')])
    await on.waitForRequests(1)
    await waitForDispatch(server, account.project.id)
    expect(await messages(server, account, disabled.id)).toEqual([])
    expect(await messages(server, account, paused.id)).toEqual([])
    expect(off.requests).toEqual([])
    const test = await callAs(server, account)('POST', `/webhooks/${disabled.id}/test`)
    expect(test.statusCode).toBe(409)
  })

  it('a slow endpoint (5 s per answer) does not delay another endpoint’s deliveries', async () => {
    const owner = await createAccount(server)
    const slow = await receiver()
    slow.respondWith(() => ({ status: 200, delayMs: 5_000 }))
    const fast = await receiver()
    await createEndpoint(server, owner, slow.url, ['slow.check'])
    const quick = await createEndpoint(server, owner, fast.url, ['slow.check'])
    const started = performance.now()
    const events = Array.from({ length: 10 }, (_, n) => customEvent(owner.project.id, 'slow.check', { n }))
    await publish(server, events)
    const delivered = await fast.waitForRequests(10, 4_000)
    expect(performance.now() - started).toBeLessThan(4_000)
    for (const request of delivered) expect(verifyDelivery(quick.secret, request)).toMatchObject({ type: 'slow.check' })
    // The slow one holds its few slots and waits: none of its answers has come yet.
    expect(slow.requests.length).toBeGreaterThan(0)
    expect(slow.requests.length).toBeLessThanOrEqual(16)
  })
})

describe('replay', () => {
  it('re-sends exactly the messages of the chosen window, with their own webhook-ids', async () => {
    const owner = await createAccount(server)
    const hooks = await receiver()
    const endpoint = await createEndpoint(server, owner, hooks.url, ['replay.check'])
    const batches = [[1], [2, 3], [4]]
    let expected = 0
    for (const batch of batches) {
      await publish(
        server,
        batch.map((n) => customEvent(owner.project.id, 'replay.check', { n })),
      )
      expected += batch.length
      await hooks.waitForRequests(expected)
    }
    const list = await messages(server, owner, endpoint.id)
    const byNumber = new Map(
      hooks.requests.map((request) => [
        (verifyDelivery(endpoint.secret, request) as { data: { event: { n: number } } }).data.event.n,
        String(header(request, 'webhook-id')),
      ]),
    )
    const createdAt = (n: number) => Date.parse(list.find((message) => message.id === byNumber.get(n))?.createdAt ?? '')
    const from = new Date(createdAt(2))
    const to = new Date(Math.max(createdAt(2), createdAt(3)) + 1)
    expect(to.getTime()).toBeLessThanOrEqual(createdAt(4))
    expect(from.getTime()).toBeGreaterThan(createdAt(1))

    const replayed = await callAs(server, owner)('POST', `/webhooks/${endpoint.id}/replay`, {
      from: from.toISOString(),
      to: to.toISOString(),
    })
    expect(replayed.statusCode, replayed.body).toBe(202)
    expect(replayed.json()).toEqual({ replayed: 2 })
    const again = (await hooks.waitForRequests(6)).slice(4)
    expect(new Set(again.map((request) => String(header(request, 'webhook-id'))))).toEqual(
      new Set([byNumber.get(2), byNumber.get(3)]),
    )
    for (const request of again) verifyDelivery(endpoint.secret, request)
    await vi.waitFor(async () => {
      const replayedDetail = await messageDetail(server, owner, endpoint.id, String(byNumber.get(3)))
      expect(replayedDetail.status).toBe('DELIVERED')
      expect(replayedDetail.attempts).toHaveLength(2)
    }, eventually)
    expect((await messageDetail(server, owner, endpoint.id, String(byNumber.get(1)))).attempts).toHaveLength(1)
    expect((await messageDetail(server, owner, endpoint.id, String(byNumber.get(4)))).attempts).toHaveLength(1)
    expect(hooks.requests).toHaveLength(6)
  })

  it('refuses a range wider than 7 days, and one that ends before it starts', async () => {
    const endpoint = await createEndpoint(server, account, 'https://hooks.example.com/', ['*'])
    const call = callAs(server, account)
    const wide = await call('POST', `/webhooks/${endpoint.id}/replay`, {
      from: '2020-01-01T00:00:00Z',
      to: '2026-01-01T00:00:00Z',
    })
    expect(wide.statusCode).toBe(422)
    expect(wide.json().error.errors).toEqual([
      { field: 'to', message: 'a replay covers at most 7 days', code: 'custom' },
    ])
    const backwards = await call('POST', `/webhooks/${endpoint.id}/replay`, {
      from: '2026-01-02T00:00:00Z',
      to: '2026-01-01T00:00:00Z',
    })
    expect(backwards.statusCode).toBe(422)
    expect(backwards.json().error.errors).toEqual([
      { field: 'from', message: 'from must be before to', code: 'custom' },
    ])
  })
})
