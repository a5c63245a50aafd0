import { EventEmitter, once } from 'node:events'
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'

type ReceivedRequest = {
  method: string
  /** Path and query, e.g. `/hooks/mailroom?x=1`. */
  url: string
  headers: IncomingHttpHeaders
  body: string
  /** Set only when the body parses as JSON. */
  json?: unknown
}

type ScriptedResponse = {
  status: number
  headers?: Record<string, string>
  body?: string
  /** Hold the answer back this long, to let a client's timeout fire first. */
  delayMs?: number
}

type ResponseHandler = (req: ReceivedRequest) => ScriptedResponse

export type HttpReceiver = {
  url: string
  /** Mutated in place, so a reference taken before `reset()` stays live. */
  requests: ReceivedRequest[]
  /** Answers every following request with `handler` until replaced or `reset()`. */
  respondWith: (handler: ResponseHandler) => void
  waitForRequests: (count: number, timeoutMs?: number) => Promise<ReceivedRequest[]>
  /** Forgets recorded requests and restores the default 200 `{"ok":true}` answer. */
  reset: () => void
  close: () => Promise<void>
}

const ADDED = 'added'

const answerOk: ResponseHandler = () => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: '{"ok":true}',
})

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = []
  const arrivals = new EventEmitter()
  const delayedAnswers = new Set<NodeJS.Timeout>()
  let handler = answerOk

  const server = createServer((req, res) => {
    readRequest(req)
      .then((request) => {
        requests.push(request)
        arrivals.emit(ADDED)
        sendResponse(res, handler(request), delayedAnswers)
      })
      .catch(() => res.destroy())
  })

  const port = await listen(server)
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith: (next) => {
      handler = next
    },
    waitForRequests: (count, timeoutMs = 10_000) => waitForCount(requests, arrivals, count, timeoutMs),
    reset: () => {
      requests.length = 0
      handler = answerOk
    },
    close: () => closeServer(server, delayedAnswers),
  }
}

async function readRequest(req: IncomingMessage): Promise<ReceivedRequest> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk)
  const body = Buffer.concat(chunks).toString('utf8')
  const request: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body }
  const json = parseJson(body)
  return json === undefined ? request : { ...request, json }
}

function parseJson(body: string): unknown {
  if (body === '') return undefined
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

function sendResponse(res: ServerResponse, scripted: ScriptedResponse, delayedAnswers: Set<NodeJS.Timeout>): void {
  const write = () => {
    if (res.destroyed) return
    res.writeHead(scripted.status, scripted.headers)
    res.end(scripted.body)
  }
  if (!scripted.delayMs) {
    write()
    return
  }
  const timer = setTimeout(() => {
    delayedAnswers.delete(timer)
    write()
  }, scripted.delayMs)
  delayedAnswers.add(timer)
}

async function listen(server: Server): Promise<number> {
  const listening = once(server, 'listening')
  server.listen(0, '127.0.0.1')
  await listening
  return portOf(server.address())
}

function portOf(address: AddressInfo | string | null): number {
  if (address === null || typeof address === 'string') {
    throw new Error(`HTTP receiver is not listening on TCP: ${address}`)
  }
  return address.port
}

function closeServer(server: Server, delayedAnswers: Set<NodeJS.Timeout>): Promise<void> {
  for (const timer of delayedAnswers) clearTimeout(timer)
  delayedAnswers.clear()
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()))
    // A request held by delayMs, or a keep-alive socket, would otherwise keep close() waiting.
    server.closeAllConnections()
  })
}

async function waitForCount<T>(
  items: readonly T[],
  emitter: EventEmitter,
  count: number,
  timeoutMs: number,
): Promise<T[]> {
  const signal = AbortSignal.timeout(timeoutMs)
  while (items.length < count) {
    try {
      await once(emitter, ADDED, { signal })
    } catch {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${count} HTTP requests, got ${items.length}`)
    }
  }
  return [...items]
}
