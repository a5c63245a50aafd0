import { defineLoop } from '../../../jobs/loop.js'
import { claimDueExecutions } from './claim.js'
import { runClaimedBatch } from './run.js'
import { executionLeaseMs } from './walk.js'

/** Executions walked in one transaction. */
const batchSize = 200
/**
 * Batches walked side by side, each in its own transaction on its own connection: a batch spends most of its
 * time waiting on round trips (a contact update per execution), which overlap.
 */
const parallelBatches = 4

/**
 * Runs due workflow executions: newly started ones, DELAYs that are over, waits their event or timeout ended.
 * A loop rather than a job, so a triggered workflow's first step runs within the second; any number of workers
 * run it side by side, each claiming its own batches.
 */
export const workflowsLoop = defineLoop({
  name: 'workflows',
  idleMs: 100,
  errorBackoffMs: 2_000,
  run: async (ctx) => {
    const claimed = await claimDueExecutions(ctx.db, batchSize * parallelBatches, executionLeaseMs)
    const batches = Array.from({ length: Math.ceil(claimed.length / batchSize) }, (_, index) =>
      claimed.slice(index * batchSize, (index + 1) * batchSize),
    )
    await Promise.all(batches.map((batch) => runClaimedBatch(ctx, batch)))
    return claimed.length === batchSize * parallelBatches
  },
})
