import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

export type CountingSink = {
  url: string
  received(): number
  /** When each message carrying an `X-Bench-Transactional: <n>` header arrived (Date.now()), by n. */
  arrivals: ReadonlyMap<number, number>
  waitFor(n: number): Promise<void>
  close(): Promise<number>
}

/**
 * A loopback SMTP sink that counts messages, on its own thread so its CPU does not show up on the sender's event
 * loop (it still shares the machine's cores with the sender, as a co-located relay would). Messages marked with
 * `X-Bench-Transactional` also report when they arrived, for latencies.
 */
export async function startCountingSink(): Promise<CountingSink> {
  const smtpServer = createRequire(import.meta.url).resolve('smtp-server')
  const worker = new Worker(
    `const { SMTPServer } = require(${JSON.stringify(smtpServer)})
     const { parentPort } = require('node:worker_threads')
     let count = 0
     const server = new SMTPServer({
       authOptional: true, disabledCommands: ['STARTTLS'], logger: false, maxClients: 1000,
       onData(stream, session, callback) {
         let head = ''
         stream.on('data', (chunk) => { if (head.length < 8192) head += chunk.toString('latin1') })
         stream.on('end', () => {
           count++
           const marker = /X-Bench-Transactional: (\\d+)/.exec(head)
           parentPort.postMessage({ count, transactional: marker ? Number(marker[1]) : undefined, at: Date.now() })
           callback()
         })
       },
     })
     server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.server.address().port }))`,
    { eval: true },
  )
  let count = 0
  const arrivals = new Map<number, number>()
  const waiters = new Set<{ n: number; resolve(): void }>()
  const port = await new Promise<number>((resolve) => {
    worker.on('message', (message: { port?: number; count?: number; transactional?: number; at?: number }) => {
      if (message.port) resolve(message.port)
      if (!message.count) return
      count = message.count
      if (message.transactional !== undefined && message.at) arrivals.set(message.transactional, message.at)
      for (const waiter of waiters) {
        if (count < waiter.n) continue
        waiters.delete(waiter)
        waiter.resolve()
      }
    })
  })
  return {
    url: `smtp://127.0.0.1:${port}`,
    received: () => count,
    arrivals,
    waitFor: (n) => (count >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.add({ n, resolve }))),
    close: () => worker.terminate(),
  }
}
