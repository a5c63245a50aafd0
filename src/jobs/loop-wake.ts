import type pg from 'pg'
import { wakeAfterCommit } from '../db/wake.js'

/** The channel the loops of every worker process LISTEN on; a wake's payload names the loop. */
export const loopsChannel = 'mailroom_loops'

/**
 * Wakes the loop `name` wherever it runs: call it after the transaction that gave the loop work has committed,
 * never inside it (see db/wake.ts).
 */
export function wakeLoop(pool: pg.Pool, name: string): void {
  wakeAfterCommit(pool, loopsChannel, name)
}
