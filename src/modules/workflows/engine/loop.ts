import { defineLoop } from '../../../jobs/loop.js'
import { runDueBatch } from './run.js'

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
 * run it side by side, each claiming its own batches. A full batch suggests more are due, so it starts the next
 * batch beside itself, up to `parallelBatches`; an idle loop costs one claim per tick.
 */
export const workflowsLoop = defineLoop({
  name: 'workflows',
  idleMs: 100,
  errorBackoffMs: 2_000,
  run: async (ctx) => {
    const batches: Promise<number>[] = []
    const start = () => {
      batches.push(
        runDueBatch(ctx, batchSize, (claimed) => {
          if (claimed === batchSize && batches.length < parallelBatches) start()
        }),
      )
    }
    start()
    // `batches` grows while the first ones claim; each is awaited, so a failed one leaves none unheard.
    let full = false
    let failure: unknown
    for (let index = 0; index < batches.length; index++) {
      try {
        full = (await batches[index]) === batchSize || full
      } catch (err) {
        failure ??= err
      }
    }
    if (failure) throw failure
    return full
  },
})
