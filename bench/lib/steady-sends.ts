import { once } from 'node:events'
import { Worker } from 'node:worker_threads'

export type SteadySendsSpec = {
  url: string
  secretKey: string
  from: string
  ratePerSecond: number
  /** The first request's number; each run's numbers must differ from earlier runs' against the same sink. */
  firstId: number
}

export type SteadySends = {
  /** Stops sending, waits for the answers, and says when each request started (Date.now(), by its number). */
  stop(): Promise<{ started: Map<number, number>; failures: string[]; seconds: number }>
}

/**
 * A steady `/v1/send` load of one-recipient password-reset emails, each marked `X-Bench-Transactional: <n>` so a
 * counting sink reports its arrival. It runs on a thread of its own, as a remote client would, so its requests
 * never wait behind the server's work on the server's event loop (it still shares the machine's cores).
 */
export function startSteadySends(spec: SteadySendsSpec): SteadySends {
  const worker = new Worker(
    `const { parentPort, workerData: spec } = require('node:worker_threads')
     const started = new Map()
     const failures = []
     const pending = new Set()
     let next = spec.firstId
     const send = () => {
       const id = next++
       started.set(id, Date.now())
       const request = fetch(spec.url, {
         method: 'POST',
         headers: { authorization: 'Bearer ' + spec.secretKey, 'content-type': 'application/json' },
         body: JSON.stringify({
           to: 'customer-' + id + '@example.org',
           from: spec.from,
           subject: 'Your password reset',
           body: '<p>Reset it here.</p>',
           headers: { 'X-Bench-Transactional': String(id) },
         }),
       })
         .then(async (response) => {
           if (!response.ok) failures.push(response.status + ' ' + (await response.text()))
         })
         .catch((err) => failures.push(String(err)))
         .finally(() => pending.delete(request))
       pending.add(request)
     }
     // Open loop: a late timer sends what fell due meanwhile, so the rate holds however busy the machine is.
     const begun = performance.now()
     const timer = setInterval(() => {
       const due = spec.firstId + Math.floor(((performance.now() - begun) * spec.ratePerSecond) / 1000)
       while (next < due) send()
     }, 1000 / spec.ratePerSecond)
     parentPort.once('message', async () => {
       clearInterval(timer)
       await Promise.all(pending)
       parentPort.postMessage({ started: [...started], failures, seconds: (performance.now() - begun) / 1000 })
     })`,
    { eval: true, workerData: spec },
  )
  return {
    async stop() {
      worker.postMessage('stop')
      const [result] = (await once(worker, 'message')) as [
        { started: [number, number][]; failures: string[]; seconds: number },
      ]
      await worker.terminate()
      return { ...result, started: new Map(result.started) }
    },
  }
}
