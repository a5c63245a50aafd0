import http from 'node:http'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

/**
 * Errors raised by fastify and node themselves (router, body parsers, HTTP parser) leave in the standard body
 * with a status that matches it, over real HTTP: `inject` would skip node's parser and may normalise URLs.
 */

let server: TestServer
let account: Account

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
})
afterAll(async () => {
  await server.close()
})

type RawResponse = { status: number; headers: http.IncomingHttpHeaders; body: string }

/** One request with the path sent exactly as given (no URL parsing on the way). */
function request(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const { port } = new URL(server.url)
  return new Promise<RawResponse>((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, path, method, headers }, (incoming) => {
      let text = ''
      incoming.setEncoding('utf8')
      incoming.on('data', (chunk: string) => {
        text += chunk
      })
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }))
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

/** Bytes written straight to a socket, for what node's HTTP parser refuses; the whole answer as text. */
function rawExchange(bytes: string): Promise<string> {
  const { port } = new URL(server.url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes))
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      text += chunk
    })
    socket.on('close', () => resolve(text))
    socket.on('error', reject)
  })
}

function expectStandardError(response: RawResponse, status: number, code: string) {
  expect(response.status, response.body).toBe(status)
  expect(response.headers['content-type']).toMatch(/^application\/json/)
  const requestId = response.headers['x-request-id']
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
  expect(JSON.parse(response.body)).toEqual({
    success: false,
    error: { code, message: expect.any(String), statusCode: status, requestId },
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  })
}

describe('framework errors leave in the standard body', () => {
  const json = () => ({ authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' })

  const cases: [name: string, send: () => Promise<RawResponse>, status: number, code: string][] = [
    ['a path segment that is not UTF-8 (%FF%FE)', () => request('GET', '/contacts/%FF%FE', json()), 400, 'BAD_REQUEST'],
    [
      'a path segment holding a lone surrogate (%ED%A0%80)',
      () => request('GET', '/contacts/%ED%A0%80'),
      400,
      'BAD_REQUEST',
    ],
    ['a truncated escape on an unknown route (/%)', () => request('GET', '/%'), 400, 'BAD_REQUEST'],
    [
      'a path parameter over the router limit',
      () => request('GET', `/contacts/${'a'.repeat(600)}`),
      414,
      'URI_TOO_LONG',
    ],
    ['malformed JSON', () => request('POST', '/contacts', json(), '{"email":'), 400, 'INVALID_JSON'],
    ['a JSON body of only whitespace', () => request('POST', '/contacts', json(), '  '), 400, 'INVALID_JSON'],
    [
      'a content type no route parses',
      () => request('POST', '/contacts', { ...json(), 'content-type': 'text/xml' }, '<a/>'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'a body over the limit',
      () => request('POST', '/contacts', json(), JSON.stringify({ email: 'x'.repeat(2 * 1024 * 1024) })),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    ['an unknown route', () => request('GET', '/no/such/route'), 404, 'NOT_FOUND'],
    ['an unknown method', () => request('PROPFIND', '/contacts'), 404, 'NOT_FOUND'],
  ]
  for (const [name, send, status, code] of cases) {
    it(`${name}: ${status} ${code}`, async () => {
      expectStandardError(await send(), status, code)
    })
  }

  it('the error body of a bad URL does not echo the URL', async () => {
    const response = await request('GET', '/contacts/%FF%3Cscript%3E')
    expect(JSON.parse(response.body).error.message).toBe(
      'Malformed URL: a path segment is not valid percent-encoded UTF-8',
    )
  })

  /** Splits a raw HTTP answer into the parts expectStandardError reads. */
  function parseRaw(text: string): RawResponse {
    const [head = '', body = ''] = text.split('\r\n\r\n')
    const [statusLine = '', ...lines] = head.split('\r\n')
    const headers: http.IncomingHttpHeaders = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    return { status: Number(statusLine.split(' ')[1]), headers, body }
  }

  it('a request node cannot parse: 400 BAD_REQUEST', async () => {
    expectStandardError(parseRaw(await rawExchange('NOT HTTP AT ALL\r\n\r\n')), 400, 'BAD_REQUEST')
  })

  it('request headers over node’s limit: 431 HEADERS_TOO_LARGE', async () => {
    const text = await rawExchange(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expectStandardError(parseRaw(text), 431, 'HEADERS_TOO_LARGE')
  })
})
