import type pg from 'pg'
import { wakeLoop } from '../../../jobs/loop-wake.js'

export const workflowsLoopName = 'workflows'

/** Call after the transaction that made executions due (a trigger, an answered wait) has committed. */
export function wakeWorkflowLoop(pool: pg.Pool): void {
  wakeLoop(pool, workflowsLoopName)
}
