import type pg from 'pg'

/*
 * A connection to PostgreSQL can be lost at any time: a restart, an administrator's pg_terminate_backend, a reset
 * network. What is lost is the query in flight (its promise rejects); the process must live on and the next
 * query connect again.
 */

/**
 * SQLSTATEs of a connection PostgreSQL refused or ended: class 08 (connection exception), shut down by an
 * administrator or a restart (57P01), after another backend crashed (57P02), while starting up (57P03), too many
 * connections (53300).
 */
const lostStates = new Set(['57P01', '57P02', '57P03', '53300'])
/** Socket errors of a server gone, refusing, or unreachable. */
const lostErrnos = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'])
/** What `pg` itself throws, without a code, for a connection that ended or could not be made in time. */
const lostMessages = ['Connection terminated', 'timeout exceeded when trying to connect', 'is not queryable']

function isLostItself(err: object): boolean {
  const { code, syscall } = err as { code?: unknown; syscall?: unknown }
  if (typeof code === 'string') {
    if (code.startsWith('08') && code.length === 5) return true
    if (lostStates.has(code) || lostErrnos.has(code)) return true
    // A stopped server removes its Unix socket.
    if (code === 'ENOENT' && syscall === 'connect') return true
  }
  const message = err instanceof Error ? err.message : ''
  return lostMessages.some((text) => message.includes(text))
}

/**
 * Whether `err` says the database could not be reached or dropped the connection, rather than refused a
 * statement: the request may succeed once it is back. Looks through wrappers (drizzle's `cause`) and the
 * attempts of one connect (`AggregateError`).
 */
export function isConnectionLost(err: unknown): boolean {
  for (let current = err, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    if (isLostItself(current)) return true
    if (current instanceof AggregateError && current.errors.some((inner) => isConnectionLost(inner))) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

const ignore = () => {}

/**
 * A `pg` client whose connection is lost emits 'error', which ends the process when nobody listens. Attach this
 * right after creating a client of your own: the query in flight rejects anyway, so the event is only absorbed.
 */
export function absorbConnectionErrors(client: pg.ClientBase): void {
  client.on('error', ignore)
}

/**
 * Makes every client of `pool` survive a lost connection. The pool listens for errors only on its idle clients; one
 * checked out (a transaction, a LISTEN) would end the process. And a holder may never release a client whose
 * connection is gone: drizzle's `transaction` sends BEGIN before its try, so a BEGIN that fails keeps the client
 * out of the pool for good, and after a few restarts every request waits for a client that never comes. So a
 * client that loses its connection while checked out goes back at once, to be discarded, and its holder's later
 * `release()` does nothing.
 */
export function surviveLostConnections(pool: pg.Pool): void {
  const checkedOut = new WeakSet<pg.PoolClient>()
  pool.on('error', ignore)
  pool.on('acquire', (client) => checkedOut.add(client))
  pool.on('release', (_err, client) => checkedOut.delete(client))
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      if (!checkedOut.has(client)) return
      const release = client.release
      client.release = ignore
      release(err)
    })
  })
}
