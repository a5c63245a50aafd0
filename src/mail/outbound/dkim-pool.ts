import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { type BuiltMessage, PrivateKeyCache } from './compose.js'
import { type ComposeJob, composeJob } from './compose-job.js'
import type { WorkerRequest, WorkerResponse } from './dkim-worker.js'

/** Raised when a message cannot be built (bad input): retrying would fail the same way. */
export class ComposeError extends Error {
  override name = 'ComposeError'
}

export type ComposePool = {
  /** Renders, builds and DKIM-signs a message on a worker thread; resolves with its raw RFC 5322 bytes. */
  compose(job: ComposeJob): Promise<BuiltMessage>
  close(): Promise<void>
}

type Pending = { resolve(built: BuiltMessage): void; reject(err: Error): void }
type PoolWorker = { worker: Worker; pending: Map<number, Pending> }

const workerUrl = new URL(import.meta.url.endsWith('.ts') ? './dkim-worker.ts' : './dkim-worker.js', import.meta.url)

/**
 * From the sources (tsx, vitest) a worker thread cannot load TypeScript by itself, so it asks tsx to
 * import the file; the built `dist` loads the `.js` directly.
 */
function spawnWorker(): Worker {
  if (!workerUrl.pathname.endsWith('.ts')) return new Worker(workerUrl)
  const tsxApi = import.meta.resolve('tsx/esm/api')
  const code = `import(${JSON.stringify(tsxApi)}).then((tsx) => tsx.tsImport(${JSON.stringify(workerUrl.href)}, ${JSON.stringify(import.meta.url)}))`
  return new Worker(code, { eval: true })
}

/**
 * RSA signing costs ~1 ms of CPU per message: one worker per core keeps it off the event loop. `size` 0 composes
 * on the calling thread instead (COMPOSE_THREADS=0): for one core, where a thread only adds hand-overs.
 */
export function startComposePool(options: { size?: number } = {}): ComposePool {
  const size = options.size ?? availableParallelism()
  if (size === 0) return inProcessComposer()
  const workers: PoolWorker[] = []
  let nextId = 0
  let closed = false

  const start = (index: number) => {
    const entry: PoolWorker = { worker: spawnWorker(), pending: new Map() }
    entry.worker.on('message', (response: WorkerResponse) => {
      const pending = entry.pending.get(response.id)
      if (!pending) return
      entry.pending.delete(response.id)
      if (entry.pending.size === 0) entry.worker.unref()
      if ('error' in response) pending.reject(new ComposeError(response.error))
      else {
        const raw = Buffer.from(response.raw.buffer, response.raw.byteOffset, response.raw.byteLength)
        pending.resolve({ raw, subject: response.subject, ...(response.links ? { links: response.links } : {}) })
      }
    })
    const fail = (err: Error) => {
      for (const pending of entry.pending.values()) pending.reject(err)
      entry.pending.clear()
      // A crashed worker is replaced so one bad message cannot shrink the pool for good.
      if (!closed && workers[index] === entry) start(index)
    }
    entry.worker.on('error', fail)
    entry.worker.on('exit', (code) => fail(new Error(`compose worker exited with code ${code}`)))
    entry.worker.unref()
    workers[index] = entry
  }

  return {
    compose(job) {
      if (closed) return Promise.reject(new Error('compose pool is closed'))
      // Threads start on first use: processes that never send pay nothing for them.
      if (workers.length === 0) for (let index = 0; index < size; index++) start(index)
      let entry = workers[0] as PoolWorker
      for (const candidate of workers) if (candidate.pending.size < entry.pending.size) entry = candidate
      const id = nextId++
      return new Promise<BuiltMessage>((resolve, reject) => {
        // An idle thread must not keep the process alive, a busy one must until it has answered.
        if (entry.pending.size === 0) entry.worker.ref()
        entry.pending.set(id, { resolve, reject })
        entry.worker.postMessage({ id, job } satisfies WorkerRequest)
      })
    },
    async close() {
      closed = true
      await Promise.all(workers.map((entry) => entry.worker.terminate()))
    },
  }
}

/** Composes on the calling thread, with the threads' outcomes: a message that cannot be built is a ComposeError. */
function inProcessComposer(): ComposePool {
  const keys = new PrivateKeyCache()
  let closed = false
  return {
    async compose(job) {
      if (closed) throw new Error('compose pool is closed')
      try {
        return await composeJob(job, keys)
      } catch (err) {
        throw new ComposeError(err instanceof Error ? err.message : String(err))
      }
    },
    async close() {
      closed = true
    },
  }
}
