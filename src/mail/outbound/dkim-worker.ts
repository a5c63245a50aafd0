import { parentPort } from 'node:worker_threads'
import { buildMessage, type ComposeJob, PrivateKeyCache } from './compose.js'

export type WorkerRequest = { id: number; job: ComposeJob }
export type WorkerResponse = { id: number; raw: Uint8Array } | { id: number; error: string }

const port = parentPort
if (!port) throw new Error('dkim-worker must run in a worker thread')
const keys = new PrivateKeyCache()

// Building is synchronous, so each message is handed back as soon as it is ready; its bytes are moved, not copied.
port.on('message', (request: WorkerRequest) => {
  let response: WorkerResponse
  try {
    response = { id: request.id, raw: buildMessage(request.job, keys) }
  } catch (err) {
    port.postMessage({
      id: request.id,
      error: err instanceof Error ? err.message : String(err),
    } satisfies WorkerResponse)
    return
  }
  port.postMessage(response, [response.raw.buffer as ArrayBuffer])
})
