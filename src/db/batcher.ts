/**
 * Group commit for hot request paths: requests that arrive while earlier batches are in flight are gathered
 * and handed to `run` together, so many requests share one round trip and one commit. There is no timer:
 * at low load a request starts its batch at once (on the next turn of the event loop); under load a batch
 * forms while up to `maxInFlight` earlier ones run, capped at `maxSize`. Each caller's promise settles with
 * its own item's outcome, after `run` has finished (for writes: after the commit).
 */
export type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown }

export type BatcherOptions<I, O> = {
  maxSize: number
  maxInFlight: number
  /** Settles every item, in input order; throwing fails the whole batch. */
  run(items: I[]): Promise<Outcome<O>[]>
  /**
   * Items with the same key never share a batch (e.g. one contact twice in one upsert), nor run while a batch
   * holding that key is in flight: the later one waits for the earlier one's batch to finish, so writes to
   * one key happen in arrival order.
   */
  keyOf?(item: I): string
}

type Waiting<I, O> = { item: I; resolve(value: O): void; reject(error: unknown): void }

export type Batcher<I, O> = (item: I) => Promise<O>

export function createBatcher<I, O>(options: BatcherOptions<I, O>): Batcher<I, O> {
  let queue: Waiting<I, O>[] = []
  let inFlight = 0
  let scheduled = false
  /** Keys of the items in batches now running. */
  const busy = new Set<string>()

  /** The next batch, and the keys it holds (marked busy until it finishes). */
  function take(): { batch: Waiting<I, O>[]; keys: string[] } {
    if (!options.keyOf && queue.length <= options.maxSize) {
      const all = queue
      queue = []
      return { batch: all, keys: [] }
    }
    const batch: Waiting<I, O>[] = []
    const rest: Waiting<I, O>[] = []
    const keys = new Set<string>()
    // A key passed over once stays passed over for this batch, so a later item never overtakes an earlier one.
    const skipped = new Set<string>()
    for (const waiting of queue) {
      const key = options.keyOf?.(waiting.item)
      const blocked = key !== undefined && (keys.has(key) || busy.has(key) || skipped.has(key))
      if (batch.length >= options.maxSize || blocked) {
        if (key !== undefined) skipped.add(key)
        rest.push(waiting)
        continue
      }
      if (key !== undefined) keys.add(key)
      batch.push(waiting)
    }
    queue = rest
    for (const key of keys) busy.add(key)
    return { batch, keys: [...keys] }
  }

  async function runBatch(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const outcomes = await options.run(batch.map((waiting) => waiting.item))
      batch.forEach((waiting, index) => {
        const outcome = outcomes[index]
        if (!outcome) waiting.reject(new Error('batch returned no outcome for an item'))
        else if (outcome.ok) waiting.resolve(outcome.value)
        else waiting.reject(outcome.error)
      })
    } catch (err) {
      for (const waiting of batch) waiting.reject(err)
    }
  }

  function flush(): void {
    scheduled = false
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const { batch, keys } = take()
      // Everything left waits on a key that is in flight; the batch holding it reschedules when it ends.
      if (batch.length === 0) return
      inFlight += 1
      void runBatch(batch).finally(() => {
        inFlight -= 1
        for (const key of keys) busy.delete(key)
        schedule()
      })
    }
  }

  // setImmediate rather than running at once: requests parsed in the same event-loop turn share a batch.
  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= options.maxInFlight) return
    scheduled = true
    setImmediate(flush)
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject })
      schedule()
    })
}

/** Outcomes of a batch where every item succeeded (lookups: a missing row is a value, not an error). */
export function allOk<O>(values: readonly O[]): Outcome<O>[] {
  return values.map((value) => ({ ok: true, value }))
}

/** Runs `one` for each item, sequentially, settling each on its own: the fallback after a batch failed. */
export async function settleEach<I, O>(items: readonly I[], one: (item: I) => Promise<O>): Promise<Outcome<O>[]> {
  const outcomes: Outcome<O>[] = []
  for (const item of items) {
    try {
      outcomes.push({ ok: true, value: await one(item) })
    } catch (error) {
      outcomes.push({ ok: false, error })
    }
  }
  return outcomes
}

/** One batcher per owner (a database or a context), made on first use: tests run many contexts in a process. */
export function batcherPer<K extends object, I, O>(
  options: (owner: K) => BatcherOptions<I, O>,
): (owner: K) => Batcher<I, O> {
  const batchers = new WeakMap<K, Batcher<I, O>>()
  return (owner) => {
    let batcher = batchers.get(owner)
    if (!batcher) {
      batcher = createBatcher(options(owner))
      batchers.set(owner, batcher)
    }
    return batcher
  }
}
