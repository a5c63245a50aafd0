import { parentPort } from 'node:worker_threads'
import { buildMessage, type ComposeJob, PrivateKeyCache } from './compose.js'

export type WorkerRequest = { id: number; job: ComposeJob }
export type WorkerResponse = { id: number; raw: Uint8Array } | { id: number; error: string }

const port = parentPort
if (!port) throw new Error('dkim-worker must run in a worker thread')
const keys = new PrivateKeyCache()
const queue: WorkerRequest[] = []
let working = false

/**
 * One job at a time: building a message awaits internally, and interleaving hundreds of them would finish
 * them all at about the same time instead of handing each to the transport as soon as it is ready.
 */
async function work(): Promise<void> {
  working = true
  for (let request = queue.shift(); request; request = queue.shift()) {
    try {
      port?.postMessage({ id: request.id, raw: await buildMessage(request.job, keys) } satisfies WorkerResponse)
    } catch (err) {
      port?.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) })
    }
  }
  working = false
}

port.on('message', (request: WorkerRequest) => {
  queue.push(request)
  if (!working) void work()
})
