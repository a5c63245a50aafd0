import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createResolver, type DnsResolver } from '../../../src/mail/dns.js'
import type { AddressPolicy } from '../../../src/modules/workflows/webhook/address-policy.js'
import { sendWebhook, type WebhookError, type WebhookRequest } from '../../../src/modules/workflows/webhook/index.js'
import { deliverWebhook } from '../../../src/modules/workflows/webhook/request.js'
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js'
import { type HttpReceiver, startHttpReceiver } from '../../helpers/http-receiver.js'

let receiver: HttpReceiver
let port: string
let dns: TestDnsServer
let resolver: DnsResolver
let redirector: Redirector

beforeAll(async () => {
  receiver = await startHttpReceiver()
  port = new URL(receiver.url).port
  dns = await startDnsServer({
    'internal.mailroom.test': { A: ['127.0.0.1'] },
    'internal6.mailroom.test': { AAAA: ['::1'] },
    'mixed.mailroom.test': { A: ['93.184.215.14', '127.0.0.1'] },
    'front.mailroom.test': { A: ['127.0.0.2'] },
    'empty.mailroom.test': { MX: [{ exchange: 'mx.mailroom.test', priority: 10 }] },
  })
  resolver = createResolver({ dnsServers: [dns.address] }, { cacheTtlMs: 0, timeoutMs: 2_000 })
  redirector = await startRedirector('127.0.0.2')
})
beforeEach(() => receiver.reset())
afterAll(async () => {
  await Promise.all([receiver.close(), dns.close(), redirector.close()])
})

function post(url: string): WebhookRequest {
  return { url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' }
}

async function sendError(promise: Promise<unknown>): Promise<WebhookError> {
  return promise.then(
    () => {
      throw new Error('expected the webhook to be refused')
    },
    (err: WebhookError) => err,
  )
}

/** Lets through 127.0.0.2 (the redirector) and nothing else: a stand-in for "the first hop is public". */
const onlyRedirector: AddressPolicy = (address) =>
  address === '127.0.0.2' ? { allowed: true } : { allowed: false, range: 'loopback' }

describe('with private networks not allowed, a webhook is refused', () => {
  it('to the IP literal 127.0.0.1', async () => {
    const err = await sendError(sendWebhook(post(receiver.url), { resolver, allowPrivate: false }))

    expect(err).toMatchObject({
      reason: 'blocked_address',
      message: 'webhook host 127.0.0.1 is not a public address (loopback)',
    })
    expect(receiver.requests).toEqual([])
  })

  it.each([
    ['[::1]', '::1', 'loopback'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1', 'loopback'],
    ['0x7f.0.0.1', '127.0.0.1', 'loopback'],
    ['2130706433', '127.0.0.1', 'loopback'],
  ])('to the IP literal %s, however it is spelled', async (host, canonical, range) => {
    const err = await sendError(sendWebhook(post(`http://${host}:${port}/`), { resolver, allowPrivate: false }))

    expect(err).toMatchObject({
      reason: 'blocked_address',
      message: `webhook host ${canonical} is not a public address (${range})`,
    })
    expect(receiver.requests).toEqual([])
  })

  it('to a DNS name that resolves to 127.0.0.1 through our resolver', async () => {
    const err = await sendError(
      sendWebhook(post(`http://internal.mailroom.test:${port}/`), { resolver, allowPrivate: false }),
    )

    expect(err).toMatchObject({
      reason: 'blocked_address',
      message: 'webhook host internal.mailroom.test resolves to 127.0.0.1, not a public address (loopback)',
    })
    expect(dns.queries).toContainEqual({ name: 'internal.mailroom.test', type: 'A' })
    expect(receiver.requests).toEqual([])
  })

  it('to a DNS name with only an AAAA record for ::1', async () => {
    const err = await sendError(
      sendWebhook(post(`http://internal6.mailroom.test:${port}/`), { resolver, allowPrivate: false }),
    )

    expect(err).toMatchObject({
      reason: 'blocked_address',
      message: 'webhook host internal6.mailroom.test resolves to ::1, not a public address (loopback)',
    })
  })

  it('to localhost, which is loopback whatever DNS says', async () => {
    const err = await sendError(sendWebhook(post(`http://localhost:${port}/`), { resolver, allowPrivate: false }))

    expect(err).toMatchObject({
      reason: 'blocked_address',
      message: 'webhook host localhost resolves to 127.0.0.1, not a public address (loopback)',
    })
    expect(receiver.requests).toEqual([])
  })

  it('to a name with a public and a private address (DNS rebinding): one refused address refuses the host', async () => {
    const err = await sendError(
      sendWebhook(post(`http://mixed.mailroom.test:${port}/`), { resolver, allowPrivate: false }),
    )

    expect(err).toMatchObject({
      reason: 'blocked_address',
      message: 'webhook host mixed.mailroom.test resolves to 127.0.0.1, not a public address (loopback)',
    })
    expect(receiver.requests).toEqual([])
  })

  it('through a redirect from an allowed first hop to 127.0.0.1', async () => {
    redirector.redirectTo(`${receiver.url}/inside`)

    const err = await sendError(deliverWebhook(post(`${redirector.url}/start`), { resolver, policy: onlyRedirector }))

    expect(err).toMatchObject({
      reason: 'blocked_address',
      message: 'webhook host 127.0.0.1 is not a public address (loopback)',
    })
    expect(redirector.hits).toEqual(['/start'])
    expect(receiver.requests).toEqual([])
  })

  it('through a redirect to a name that resolves to 127.0.0.1', async () => {
    redirector.redirectTo(`http://internal.mailroom.test:${port}/inside`)
    redirector.hits.length = 0

    const err = await sendError(
      deliverWebhook(post(`http://front.mailroom.test:${redirector.port}/start`), { resolver, policy: onlyRedirector }),
    )

    expect(err).toMatchObject({
      reason: 'blocked_address',
      message: 'webhook host internal.mailroom.test resolves to 127.0.0.1, not a public address (loopback)',
    })
    expect(redirector.hits).toEqual(['/start'])
    expect(receiver.requests).toEqual([])
  })
})

describe('a webhook is delivered', () => {
  it('by name, to the address our resolver returned and the policy accepted', async () => {
    const onlyLoopback: AddressPolicy = (address) =>
      address === '127.0.0.1' ? { allowed: true } : { allowed: false, range: 'private' }

    const result = await deliverWebhook(post(`http://internal.mailroom.test:${port}/by-name`), {
      resolver,
      policy: onlyLoopback,
    })

    expect(result).toMatchObject({ ok: true, status: 200, url: `http://internal.mailroom.test:${port}/by-name` })
    expect(receiver.requests.map((req) => [req.url, req.headers.host])).toEqual([
      ['/by-name', `internal.mailroom.test:${port}`],
    ])
  })

  it('with private networks allowed, through the same redirect, without credentials for the other origin', async () => {
    redirector.redirectTo(`${receiver.url}/inside`)
    const request = post(`${redirector.url}/start`)
    request.headers.authorization = 'Bearer for-the-redirector'
    request.headers['x-trace'] = 'kept'

    const result = await sendWebhook(request, { resolver, allowPrivate: true })

    expect(result).toMatchObject({ ok: true, redirects: 1, url: `${receiver.url}/inside` })
    const [received] = receiver.requests
    expect(received?.headers.authorization).toBeUndefined()
    expect(received?.headers['x-trace']).toBe('kept')
  })
})

describe('with private networks allowed, a webhook is still refused', () => {
  it('to 0.0.0.0, which Linux would connect to this host', async () => {
    const err = await sendError(sendWebhook(post(`http://0.0.0.0:${port}/`), { resolver, allowPrivate: true }))

    expect(err).toMatchObject({
      reason: 'blocked_address',
      message: 'webhook host 0.0.0.0 is not a public address (unspecified)',
    })
    expect(receiver.requests).toEqual([])
  })

  it('to a name without addresses, or one that does not exist', async () => {
    const empty = await sendError(
      sendWebhook(post(`http://empty.mailroom.test:${port}/`), { resolver, allowPrivate: true }),
    )
    const missing = await sendError(
      sendWebhook(post(`http://nowhere.mailroom.test:${port}/`), { resolver, allowPrivate: true }),
    )

    expect(empty).toMatchObject({
      reason: 'unresolvable_host',
      message: 'webhook host empty.mailroom.test has no A or AAAA record',
    })
    expect(missing).toMatchObject({
      reason: 'unresolvable_host',
      message: 'webhook host nowhere.mailroom.test has no A or AAAA record',
    })
  })
})

type Redirector = {
  url: string
  port: string
  hits: string[]
  redirectTo: (location: string) => void
  close: () => Promise<void>
}

/** A second receiver on another loopback address, answering every request with a 302. */
async function startRedirector(host: string): Promise<Redirector> {
  const hits: string[] = []
  let location = '/'
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '')
    req.resume()
    res.writeHead(302, { location })
    res.end()
  })
  server.listen(0, host)
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${host}:${port}`,
    port: String(port),
    hits,
    redirectTo: (next) => {
      location = next
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
