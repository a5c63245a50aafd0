import { parentPort } from 'node:worker_threads'
import { buildMessage, type ComposeJob, PrivateKeyCache } from './compose.js'

export type WorkerRequest = { id: number; job: ComposeJob }
export type WorkerResponse = { id: number; raw: Uint8Array } | { id: number; error: string }

const port = parentPort
if (!port) throw new Error('dkim-worker must run in a worker thread')
const keys = new PrivateKeyCache()

port.on('message', ({ id, job }: WorkerRequest) => {
  buildMessage(job, keys).then(
    (raw) => port.postMessage({ id, raw } satisfies WorkerResponse),
    (err: unknown) => port.postMessage({ id, error: err instanceof Error ? err.message : String(err) }),
  )
})
