import type pg from 'pg'
import { wakeLoop } from '../jobs/loop-wake.js'

export const dispatcherLoopName = 'events-dispatch'

/**
 * Call after the transaction that published events has committed (never inside it): the bus hands them to its
 * subscribers now instead of at its next poll.
 */
export function wakeEventDispatcher(pool: pg.Pool): void {
  wakeLoop(pool, dispatcherLoopName)
}
