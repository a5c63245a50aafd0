import { defineLoop } from '../../../jobs/loop.js'
import { anyExecutionDue } from './claim.js'
import { runDueBatch } from './run.js'
import { workflowsLoopName } from './wake.js'

/**
 * Executions walked in one transaction. A tick's first batch stays small, so steady triggers run their first step
 * soon; the batches a full one starts beside itself are larger, as a backlog (100k DELAYs ending at once) is then
 * waiting: fewer statements and commits per execution (500: about 15 % faster than 200 through a 100k wake-up;
 * 2,000: the last of 100k woke 4.6 s after due against 5.3 s at 500, median of three interleaved runs, with about
 * the same CPU per execution).
 */
const batchSize = 200
const backlogBatchSize = 2000
/**
 * Batches walked side by side, each in its own transaction on its own connection: a batch spends most of its
 * time waiting on round trips (a contact update per execution), which overlap.
 */
const parallelBatches = 6 // 4 left the two cores a fifth idle through a 100k wake-up: 5.1 s against 4.7 s

/**
 * Runs due workflow executions: newly started ones, DELAYs that are over, waits their event or timeout ended.
 * A loop rather than a job, so a triggered workflow's first step runs within the second; any number of workers
 * run it side by side, each claiming its own batches. A full batch suggests more are due, so it starts the next
 * batch beside itself, up to `parallelBatches`; an idle loop costs one unlocked look per tick.
 */
export const workflowsLoop = defineLoop({
  name: workflowsLoopName,
  idleMs: 100,
  errorBackoffMs: 2_000,
  hasWork: (ctx) => anyExecutionDue(ctx.db),
  run: async (ctx) => {
    const batches: Promise<number>[] = []
    const start = (limit: number) => {
      batches.push(
        runDueBatch(ctx, limit, (claimed) => {
          if (claimed === limit && batches.length < parallelBatches) start(backlogBatchSize)
        }),
      )
    }
    start(batchSize)
    // `batches` grows while the first ones claim (an array's iterator sees what is pushed meanwhile); each is
    // awaited, so a failed one leaves none unheard.
    let full = false
    let failure: unknown
    for (const batch of batches) {
      try {
        full = (await batch) >= batchSize || full
      } catch (err) {
        failure ??= err
      }
    }
    if (failure) throw failure
    return full
  },
})
