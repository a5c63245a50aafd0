import { once } from 'node:events'
import { Worker } from 'node:worker_threads'

/** One request as the receiver saw it: its `webhook-id`, the payload's type and `timestamp`, and when it came. */
export type WebhookArrival = { id: string; type: string; eventAt: number; arrivedAt: number }

export type WebhookReceiver = {
  url: string
  /** How many requests have arrived so far (every attempt, repeats included). */
  received(): number
  /** Every request since the last `take`, and forgets them. */
  take(): Promise<WebhookArrival[]>
  close(): Promise<void>
}

/**
 * A local HTTP endpoint answering every webhook 200 at once, on a thread of its own so that its clock reads the
 * arrival without waiting behind the bench's own work (it still shares the machine's cores with the server).
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const worker = new Worker(
    `const { createServer } = require('node:http')
     const { parentPort } = require('node:worker_threads')
     let arrivals = []
     let count = 0
     const server = createServer((req, res) => {
       const chunks = []
       req.on('data', (chunk) => chunks.push(chunk))
       req.on('end', () => {
         const arrivedAt = Date.now()
         count++
         let type = '', eventAt = 0
         try {
           const payload = JSON.parse(Buffer.concat(chunks).toString('utf8'))
           type = payload.type
           eventAt = Date.parse(payload.timestamp)
         } catch {}
         arrivals.push({ id: String(req.headers['webhook-id']), type, eventAt, arrivedAt })
         res.writeHead(200, { 'content-type': 'application/json' })
         res.end('{"ok":true}')
       })
     })
     server.keepAliveTimeout = 60_000
     parentPort.on('message', (message) => {
       if (message === 'count') parentPort.postMessage({ count })
       if (message === 'take') {
         parentPort.postMessage({ arrivals })
         arrivals = []
       }
     })
     server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }))`,
    { eval: true },
  )
  const [ready] = (await once(worker, 'message')) as [{ port: number }]
  let count = 0
  let taken: ((arrivals: WebhookArrival[]) => void) | undefined
  worker.on('message', (message: { count?: number; arrivals?: WebhookArrival[] }) => {
    if (message.count !== undefined) count = message.count
    if (message.arrivals) taken?.(message.arrivals)
  })
  const poll = setInterval(() => worker.postMessage('count'), 50)
  return {
    url: `http://127.0.0.1:${ready.port}/hooks`,
    received: () => count,
    take: () =>
      new Promise((resolve) => {
        taken = resolve
        worker.postMessage('take')
      }),
    async close() {
      clearInterval(poll)
      await worker.terminate()
    },
  }
}
