import { defineLoop } from '../../../jobs/loop.js'
import { claimDueExecutions } from './claim.js'
import { executionLeaseMs, runExecution } from './run.js'

/** Executions claimed at a time; each runs in its own transactions, side by side. */
const claimSize = 50

/**
 * Runs due workflow executions: newly started ones, DELAYs that are over, waits their event or timeout ended.
 * A loop rather than a job, so a triggered workflow's first step runs within the second; any number of workers
 * run it side by side. An execution that throws (a database error) keeps its lease and is taken up again
 * when the lease runs out.
 */
export const workflowsLoop = defineLoop({
  name: 'workflows',
  idleMs: 100,
  errorBackoffMs: 2_000,
  run: async (ctx) => {
    const claimed = await claimDueExecutions(ctx.db, claimSize, executionLeaseMs)
    await Promise.all(
      claimed.map((claim) =>
        runExecution(ctx, claim).catch((err: unknown) =>
          ctx.log.error({ err, executionId: claim.id }, 'workflow execution failed; retried when its lease ends'),
        ),
      ),
    )
    return claimed.length === claimSize
  },
})
