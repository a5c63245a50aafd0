/**
 * Lets at most `limit` tasks run at once, of which at most `bulkLimit` bulk ones; waiting urgent tasks start before
 * waiting bulk ones. Put in front of a stage with a FIFO queue of its own (the compose threads, the transport's
 * connections), it keeps that queue short, so transactional mail claimed behind a campaign's emails overtakes
 * them here instead of queueing behind every one of them.
 */
export type PriorityGate = { run<T>(urgent: boolean, task: () => Promise<T>): Promise<T> }

export function createPriorityGate(limit: number, bulkLimit = limit): PriorityGate {
  let active = 0
  let activeBulk = 0
  const waiting = { urgent: [] as (() => void)[], bulk: [] as (() => void)[] }
  const admit = (urgent: boolean) => {
    active++
    if (!urgent) activeBulk++
  }
  // Called as a task ends, so one place is free.
  const startNext = () => {
    const urgent = waiting.urgent.length > 0
    const start = urgent ? waiting.urgent.shift() : activeBulk < bulkLimit ? waiting.bulk.shift() : undefined
    if (!start) return
    admit(urgent)
    start()
  }
  return {
    async run(urgent, task) {
      if (active < limit && (urgent || activeBulk < bulkLimit)) admit(urgent)
      else await new Promise<void>((resolve) => (urgent ? waiting.urgent : waiting.bulk).push(resolve))
      try {
        return await task()
      } finally {
        active--
        if (!urgent) activeBulk--
        startNext()
      }
    },
  }
}
