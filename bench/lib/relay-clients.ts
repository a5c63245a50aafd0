import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { ClientsResult, ClientsRound, ClientsSetup } from './relay-clients-worker.js'

export type RelayClients = {
  /** Sends a round of messages over the logged-in connections; resolves once each has its reply. */
  send(round: ClientsRound): Promise<ClientsResult>
  close(): Promise<void>
}

/**
 * `setup.connections` SMTP clients of the relay on a thread of their own (relay-clients-worker.ts), logged in and
 * kept open across rounds. Rejects if a connection cannot log in.
 */
export async function startRelayClients(setup: ClientsSetup): Promise<RelayClients> {
  const worker = new Worker(new URL('./relay-clients-worker.ts', import.meta.url), { workerData: setup })
  const failed = once(worker, 'error').then(([err]) => {
    throw err
  })
  // Unheard until someone waits on it; a failure after start rejects the round that is waiting.
  failed.catch(() => {})
  const next = () => Promise.race([once(worker, 'message').then(([message]) => message as unknown), failed])
  const ready = await next()
  if (ready !== 'ready') throw new Error(`relay clients: unexpected ${String(ready)}`)
  return {
    async send(round) {
      const result = next()
      worker.postMessage(round)
      return (await result) as ClientsResult
    },
    async close() {
      worker.postMessage('close')
      await once(worker, 'exit')
    },
  }
}
