import type pg from 'pg'
import type { OutboxWake } from './sql.js'

type LocalOutbox = { wake(kind: OutboxWake): void; soleWorker: boolean }

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
export function wakeOutboxesInProcess(pool: pg.Pool, kind: OutboxWake): boolean {
  let sole = false
  for (const outbox of localOutboxes.get(pool) ?? []) {
    outbox.wake(kind)
    sole ||= outbox.soleWorker
  }
  return sole
}
