import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createResolver } from '../../../src/mail/dns.js'
import {
  defaultWebhookPayload,
  renderWebhookRequest,
  sendWebhook,
  type WebhookError,
  type WebhookStepConfigInput,
  type WebhookVariables,
  webhookStepConfig,
} from '../../../src/modules/workflows/webhook/index.js'
import { type HttpReceiver, startHttpReceiver } from '../../helpers/http-receiver.js'

const variables: WebhookVariables = {
  contact: { id: 'c-1', email: 'ada@example.com', subscribed: true, data: { plan: 'pro', seats: 3 } },
  event: { x: 'event-x', order: { id: 'o-42', total: 99.5 }, token: 's3cret' },
  context: { source: 'manual' },
  subscriptionUrls: {
    unsubscribeUrl: 'https://mail.example.com/unsubscribe/t1',
    subscribeUrl: 'https://mail.example.com/subscribe/t2',
    manageUrl: 'https://mail.example.com/manage/t3',
  },
}

const payload = defaultWebhookPayload({
  contact: variables.contact,
  workflow: { id: 'wf-1', name: 'Order follow-up' },
  execution: { id: 'ex-1', startedAt: new Date('2025-01-02T03:04:05.000Z') },
  event: variables.event,
})

// Nothing here resolves a name: the resolver is only there to show IP-literal hosts never need one.
const resolver = createResolver({ dnsServers: ['127.0.0.1:9'] }, { cacheTtlMs: 0, timeoutMs: 500 })

let receiver: HttpReceiver

beforeAll(async () => {
  receiver = await startHttpReceiver()
})
beforeEach(() => receiver.reset())
afterAll(() => receiver.close())

function request(config: WebhookStepConfigInput) {
  return renderWebhookRequest(webhookStepConfig.parse(config), variables, payload)
}

async function sendError(promise: Promise<unknown>): Promise<WebhookError> {
  return promise.then(
    () => {
      throw new Error('expected the webhook to fail')
    },
    (err: WebhookError) => err,
  )
}

describe('a webhook step delivers', () => {
  it('the default payload as a JSON POST', async () => {
    const result = await sendWebhook(request({ url: `${receiver.url}/hooks/{{id}}` }), {
      resolver,
      allowPrivate: true,
    })

    expect(result).toEqual({
      ok: true,
      status: 200,
      url: `${receiver.url}/hooks/c-1`,
      method: 'POST',
      responsePreview: '{"ok":true}',
      redirects: 0,
    })
    const [received] = receiver.requests
    expect(received?.method).toBe('POST')
    expect(received?.url).toBe('/hooks/c-1')
    expect(received?.headers['content-type']).toBe('application/json')
    expect(received?.headers['user-agent']).toBe('Mailroom-Webhook/1')
    expect(received?.json).toEqual({
      contact: { email: 'ada@example.com', subscribed: true, data: { plan: 'pro', seats: 3 } },
      workflow: { id: 'wf-1', name: 'Order follow-up' },
      execution: { id: 'ex-1', startedAt: '2025-01-02T03:04:05.000Z' },
      event: { x: 'event-x', order: { id: 'o-42', total: 99.5 }, token: 's3cret' },
    })
  })

  it('a custom body with its placeholders filled in', async () => {
    const result = await sendWebhook(
      request({
        url: receiver.url,
        method: 'PUT',
        body: {
          x: '{{event.x}}',
          total: '{{event.order.total}}',
          plan: '{{data.plan}}',
          source: '{{source}}',
          who: '{{id}} <{{email}}>',
          unsubscribe: '{{unsubscribeUrl}}',
        },
      }),
      { resolver, allowPrivate: true },
    )

    expect(result.ok).toBe(true)
    expect(receiver.requests.map(({ method, json }) => ({ method, json }))).toEqual([
      {
        method: 'PUT',
        json: {
          x: 'event-x',
          total: 99.5,
          plan: 'pro',
          source: 'manual',
          who: 'c-1 <ada@example.com>',
          unsubscribe: 'https://mail.example.com/unsubscribe/t1',
        },
      },
    ])
  })

  it('a GET without a body, placeholders encoded in its query', async () => {
    await sendWebhook(
      request({ url: `${receiver.url}/hooks?email={{email}}&order={{event.order.id}}`, method: 'GET' }),
      {
        resolver,
        allowPrivate: true,
      },
    )

    const [received] = receiver.requests
    expect(received?.method).toBe('GET')
    expect(received?.url).toBe('/hooks?email=ada%40example.com&order=o-42')
    expect(received?.body).toBe('')
    expect(received?.headers['content-type']).toBeUndefined()
    expect(received?.headers['content-length']).toBeUndefined()
  })

  it('custom headers with placeholders in their values', async () => {
    await sendWebhook(
      request({
        url: receiver.url,
        headers: { Authorization: 'Bearer {{event.token}}', 'X-Contact': '{{email}}', 'Content-Type': 'text/plain' },
      }),
      { resolver, allowPrivate: true },
    )

    const [received] = receiver.requests
    expect(received?.headers.authorization).toBe('Bearer s3cret')
    expect(received?.headers['x-contact']).toBe('ada@example.com')
    expect(received?.headers['content-type']).toBe('text/plain')
  })
})

describe('a webhook answer', () => {
  it('that is not 2xx comes back as not ok, with its status and the start of its body', async () => {
    receiver.respondWith(() => ({ status: 503, body: `database on fire ${'!'.repeat(2_000)}` }))

    const result = await sendWebhook(request({ url: receiver.url }), { resolver, allowPrivate: true })

    expect(result.ok).toBe(false)
    expect(result.status).toBe(503)
    expect(result.responsePreview).toBe(`database on fire ${'!'.repeat(1_000 - 17)}`)
  })

  it('that never comes fails with a timeout naming the host', async () => {
    receiver.respondWith(() => ({ status: 200, delayMs: 20_000 }))
    const started = Date.now()

    const err = await sendError(
      sendWebhook(request({ url: receiver.url }), { resolver, allowPrivate: true, timeoutMs: 300 }),
    )

    expect(Date.now() - started).toBeLessThan(3_000)
    expect(err).toMatchObject({
      reason: 'timeout',
      message: `webhook to ${new URL(receiver.url).host} got no answer within 300 ms`,
    })
    expect(err.message).not.toContain('    at ')
  })

  it('of 50 MB is cut after 64 KiB: it completes quickly with a 1,000-character preview', async () => {
    const big = await startStreamingServer(50 * 1024 * 1024)
    try {
      const started = Date.now()
      const result = await sendWebhook(request({ url: big.url }), { resolver, allowPrivate: true })

      expect(Date.now() - started).toBeLessThan(5_000)
      expect(result.ok).toBe(true)
      expect(result.responsePreview).toBe('x'.repeat(1_000))
      // The connection was dropped long before the server could push the whole answer.
      await big.closed
      expect(big.bytesWritten()).toBeLessThan(16 * 1024 * 1024)
    } finally {
      await big.close()
    }
  })

  it('fails with a connection error naming the host when nothing listens', async () => {
    const closed = await startStreamingServer(0)
    await closed.close()
    const host = new URL(closed.url).host

    const err = await sendError(sendWebhook(request({ url: closed.url }), { resolver, allowPrivate: true }))

    expect(err.reason).toBe('connection')
    expect(err.message).toBe(`webhook to ${host} failed: connect ECONNREFUSED ${host}`)
  })
})

describe('redirects', () => {
  it('303 turns a POST into a GET without body or content type', async () => {
    receiver.respondWith((req) =>
      req.url === '/start' ? { status: 303, headers: { location: '/next?x=1' } } : { status: 200, body: 'done' },
    )

    const result = await sendWebhook(request({ url: `${receiver.url}/start` }), { resolver, allowPrivate: true })

    expect(result).toEqual({
      ok: true,
      status: 200,
      url: `${receiver.url}/next?x=1`,
      method: 'GET',
      responsePreview: 'done',
      redirects: 1,
    })
    const [first, second] = receiver.requests
    expect(first?.method).toBe('POST')
    expect(second).toMatchObject({ method: 'GET', url: '/next?x=1', body: '' })
    expect(second?.headers['content-type']).toBeUndefined()
  })

  it('307 repeats the POST with its body', async () => {
    receiver.respondWith((req) =>
      req.url === '/start' ? { status: 307, headers: { location: '/next' } } : { status: 200 },
    )

    await sendWebhook(request({ url: `${receiver.url}/start`, body: { n: 1 } }), { resolver, allowPrivate: true })

    expect(receiver.requests.map(({ method, url, json }) => ({ method, url, json }))).toEqual([
      { method: 'POST', url: '/start', json: { n: 1 } },
      { method: 'POST', url: '/next', json: { n: 1 } },
    ])
  })

  it('are followed five times, and a sixth fails the request', async () => {
    const chainOf = (length: number) => (req: { url: string }) => {
      const hop = Number(req.url.slice(1))
      return hop < length ? { status: 302, headers: { location: `/${hop + 1}` } } : { status: 200, body: 'end' }
    }
    receiver.respondWith(chainOf(5))
    const followed = await sendWebhook(request({ url: `${receiver.url}/0` }), { resolver, allowPrivate: true })
    expect(followed).toMatchObject({ ok: true, redirects: 5, url: `${receiver.url}/5`, responsePreview: 'end' })

    receiver.reset()
    receiver.respondWith(chainOf(6))
    const err = await sendError(sendWebhook(request({ url: `${receiver.url}/0` }), { resolver, allowPrivate: true }))
    expect(err).toMatchObject({
      reason: 'too_many_redirects',
      message: `webhook to ${receiver.url}/0 was redirected more than 5 times (last to /6)`,
    })
    expect(receiver.requests.map((req) => req.url)).toEqual(['/0', '/1', '/2', '/3', '/4', '/5'])
  })

  it('to something other than http(s) fail as a bad URL', async () => {
    receiver.respondWith(() => ({ status: 302, headers: { location: 'file:///etc/passwd' } }))

    const err = await sendError(sendWebhook(request({ url: receiver.url }), { resolver, allowPrivate: true }))

    expect(err).toMatchObject({
      reason: 'bad_url',
      message: `webhook redirect from ${new URL(receiver.url).host} to file:///etc/passwd is not an http(s) URL`,
    })
  })
})

type StreamingServer = { url: string; bytesWritten: () => number; closed: Promise<void>; close: () => Promise<void> }

/** Answers 200 with `size` bytes of `x`, written as fast as the client takes them. */
async function startStreamingServer(size: number): Promise<StreamingServer> {
  let written = 0
  let resolveClosed: () => void = () => undefined
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve
  })
  const chunk = Buffer.alloc(64 * 1024, 'x')
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(size) })
    res.on('close', resolveClosed)
    const pump = () => {
      while (written < size && !res.destroyed) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - written))
        written += part.length
        if (!res.write(part)) return void res.once('drain', pump)
      }
      if (!res.destroyed) res.end()
    }
    pump()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    bytesWritten: () => written,
    closed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
