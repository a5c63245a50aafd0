import type pg from 'pg'

type LocalOutbox = { wake(): void; soleWorker: boolean }

/** The outboxes running in this process, by the pool they claim through. */
const localOutboxes = new WeakMap<pg.Pool, Set<LocalOutbox>>()

/** Lets `wakeOutboxesInProcess` reach an outbox of this process directly; returns the call that stops it. */
export function registerLocalOutbox(pool: pg.Pool, outbox: LocalOutbox): () => void {
  let outboxes = localOutboxes.get(pool)
  if (!outboxes) {
    outboxes = new Set()
    localOutboxes.set(pool, outboxes)
  }
  outboxes.add(outbox)
  return () => outboxes.delete(outbox)
}

/**
 * Wakes this process's outboxes on `pool` at once, without the NOTIFY round trip through PostgreSQL. Returns true
 * when one of them is the database's sole worker: no other process can deliver, so nobody else needs waking.
 */
export function wakeOutboxesInProcess(pool: pg.Pool): boolean {
  let sole = false
  for (const outbox of localOutboxes.get(pool) ?? []) {
    outbox.wake()
    sole ||= outbox.soleWorker
  }
  return sole
}
