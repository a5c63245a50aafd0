import type pg from 'pg'

/** `wakeLoop` notifies this channel, with the loop's name as payload, to wake the loops of other processes. */
export const loopsChannel = 'mailroom_loops'

type LocalLoop = { name: string; wake(): void; soleWorker: boolean }

/** The loops running in this process, by the pool they work through. */
const localLoops = new WeakMap<pg.Pool, Set<LocalLoop>>()

/** Lets `wakeLoop` reach a loop of this process directly; returns the call that stops it. */
export function registerLocalLoop(pool: pg.Pool, loop: LocalLoop): () => void {
  let loops = localLoops.get(pool)
  if (!loops) {
    loops = new Set()
    localLoops.set(pool, loops)
  }
  loops.add(loop)
  return () => loops.delete(loop)
}

/** Wakes this process's loops of that name (every loop for no name); true when one is the database's sole worker. */
export function wakeLoopsInProcess(pool: pg.Pool, name: string | undefined): boolean {
  let sole = false
  for (const loop of localLoops.get(pool) ?? []) {
    if (name !== undefined && loop.name !== name) continue
    loop.wake()
    sole ||= loop.soleWorker
  }
  return sole
}

const notifyDelayMs = 5
const pendingNotifies = new WeakMap<pg.Pool, Set<string>>()

/**
 * Wakes the loop `name` wherever it runs, once the transaction that gave it work has committed (call it after
 * the commit, never inside: PostgreSQL serialises the commits of every transaction that notifies). This
 * process's loops at once; the others by one NOTIFY for the wakes of a few milliseconds, unless this process is
 * the database's sole worker. Loops also poll, so a lost wake only costs latency.
 */
export function wakeLoop(pool: pg.Pool, name: string): void {
  if (wakeLoopsInProcess(pool, name)) return
  let pending = pendingNotifies.get(pool)
  if (!pending) {
    pending = new Set()
    pendingNotifies.set(pool, pending)
  }
  if (pending.has(name)) return
  pending.add(name)
  setTimeout(() => {
    pending.delete(name)
    pool.query('SELECT pg_notify($1, $2)', [loopsChannel, name]).catch(() => {})
  }, notifyDelayMs)
}
