import type pg from 'pg'

/**
 * Wakes what waits for work on a database once the transaction that made the work has committed: the waiters of
 * this process (outboxes, background loops) at once, the other processes by a NOTIFY on the waiters' channel,
 * which they LISTEN on (notification-listener.ts). Never a NOTIFY inside the transaction: PostgreSQL serialises
 * the commits of every transaction that notifies, which caps a busy endpoint at a few hundred requests a second.
 * Waiters also poll, so a lost wake only costs latency.
 */
export type LocalWaiter = {
  /** `payload` says which work (an outbox's kind of mail, a loop's name), as the NOTIFY would. */
  wake(payload: string): void
  /** This process is the only one working on its database: nobody else needs the NOTIFY. */
  soleWorker: boolean
}

/** The waiters of this process, by the pool they work through and their channel. */
const localWaiters = new WeakMap<pg.Pool, Map<string, Set<LocalWaiter>>>()

/** Lets `wakeAfterCommit` reach a waiter of this process directly; returns the call that stops it. */
export function registerLocalWaiter(pool: pg.Pool, channel: string, waiter: LocalWaiter): () => void {
  let channels = localWaiters.get(pool)
  if (!channels) {
    channels = new Map()
    localWaiters.set(pool, channels)
  }
  let waiters = channels.get(channel)
  if (!waiters) {
    waiters = new Set()
    channels.set(channel, waiters)
  }
  waiters.add(waiter)
  return () => waiters.delete(waiter)
}

const notifyDelayMs = 5
/** `channel\npayload` of the NOTIFYs waiting out `notifyDelayMs`, by pool. */
const pendingNotifies = new WeakMap<pg.Pool, Set<string>>()

/** Call after the commit that made work for `channel`'s waiters. Wakes within a few ms share one NOTIFY. */
export function wakeAfterCommit(pool: pg.Pool, channel: string, payload: string): void {
  let sole = false
  for (const waiter of localWaiters.get(pool)?.get(channel) ?? []) {
    waiter.wake(payload)
    sole ||= waiter.soleWorker
  }
  if (sole) return
  let pending = pendingNotifies.get(pool)
  if (!pending) {
    pending = new Set()
    pendingNotifies.set(pool, pending)
  }
  const key = `${channel}\n${payload}`
  if (pending.has(key)) return
  pending.add(key)
  setTimeout(() => {
    pending.delete(key)
    pool.query('SELECT pg_notify($1, $2)', [channel, payload]).catch(() => {})
  }, notifyDelayMs)
}
