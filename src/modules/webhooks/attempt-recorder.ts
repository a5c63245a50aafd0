import type { Outcome } from '../../db/batcher.js'
import type { AttemptOutcome } from './sql.js'

export type AttemptRecorderOptions = {
  maxSize: number
  /** Batches of successes recorded at once. */
  maxInFlight: number
  /** Records a batch; settles each attempt, in input order. */
  run(outcomes: AttemptOutcome[]): Promise<Outcome<void>[]>
}

type Waiting = { outcome: AttemptOutcome; resolve(): void; reject(error: unknown): void }

/**
 * Group commit for attempts: those that end while batches are being recorded are recorded together in the next
 * one (no timer). An endpoint's slot is free only once its attempt is recorded, so a batch's wait is the
 * endpoint's pace: batches of successes are recorded `maxInFlight` at once, since all they do to an endpoint's
 * failure streak is end it, in any order. A batch holding a failure starts or moves a streak, and may disable the
 * endpoint: it is recorded alone, after every batch before it and before any after it, so each endpoint's streak
 * moves in the order its attempts ended.
 */
export function createAttemptRecorder(options: AttemptRecorderOptions): (outcome: AttemptOutcome) => Promise<void> {
  let queue: Waiting[] = []
  let inFlight = 0
  let alone = false
  let scheduled = false

  function schedule(): void {
    if (scheduled) return
    scheduled = true
    // setImmediate rather than at once: attempts answered in the same turn of the event loop share a batch.
    setImmediate(flush)
  }

  function flush(): void {
    scheduled = false
    while (queue.length > 0 && !alone && inFlight < options.maxInFlight) {
      const window = queue.slice(0, options.maxSize)
      const firstFailure = window.findIndex((waiting) => !waiting.outcome.succeeded)
      if (firstFailure === 0 && inFlight > 0) return
      const size = firstFailure <= 0 ? window.length : firstFailure
      const batch = queue.slice(0, size)
      queue = queue.slice(size)
      const exclusive = firstFailure === 0
      alone = exclusive
      inFlight++
      void settle(batch).finally(() => {
        inFlight--
        if (exclusive) alone = false
        if (queue.length > 0) schedule()
      })
    }
  }

  async function settle(batch: Waiting[]): Promise<void> {
    try {
      const outcomes = await options.run(batch.map((waiting) => waiting.outcome))
      batch.forEach((waiting, index) => {
        const outcome = outcomes[index]
        if (!outcome) waiting.reject(new Error('batch returned no outcome for an attempt'))
        else if (outcome.ok) waiting.resolve()
        else waiting.reject(outcome.error)
      })
    } catch (err) {
      for (const waiting of batch) waiting.reject(err)
    }
  }

  return (outcome) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ outcome, resolve, reject })
      schedule()
    })
}
