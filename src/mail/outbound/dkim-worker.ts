import { parentPort } from 'node:worker_threads'
import { PrivateKeyCache } from './compose.js'
import { type ComposeJob, composeJob } from './compose-job.js'
import type { TrackedLink } from './tracking-links.js'

export type WorkerRequest = { id: number; job: ComposeJob }
export type WorkerResponse =
  | { id: number; raw: Uint8Array; subject: string; links?: TrackedLink[] }
  | { id: number; error: string }

const port = parentPort
if (!port) throw new Error('dkim-worker must run in a worker thread')
const keys = new PrivateKeyCache()

// Each message is handed back as soon as it is ready; its bytes are moved, not copied.
port.on('message', (request: WorkerRequest) => {
  composeJob(request.job, keys).then(
    ({ raw, subject, links }) => {
      const response = { id: request.id, raw, subject, ...(links ? { links } : {}) } satisfies WorkerResponse
      port.postMessage(response, [raw.buffer as ArrayBuffer])
    },
    (err: unknown) => {
      port.postMessage({
        id: request.id,
        error: err instanceof Error ? err.message : String(err),
      } satisfies WorkerResponse)
    },
  )
})
