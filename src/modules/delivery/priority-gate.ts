/**
 * Lets at most `limit` tasks run at once; waiting urgent tasks start before waiting bulk ones. Put in front of a
 * stage with a FIFO queue of its own (the compose threads, the transport's connections), it keeps that queue
 * short, so transactional mail claimed behind a campaign's emails overtakes them here instead of queueing
 * behind every one of them.
 */
export type PriorityGate = { run<T>(urgent: boolean, task: () => Promise<T>): Promise<T> }

export function createPriorityGate(limit: number): PriorityGate {
  let active = 0
  const waiting = { urgent: [] as (() => void)[], bulk: [] as (() => void)[] }
  const startNext = () => {
    const start = waiting.urgent.shift() ?? waiting.bulk.shift()
    if (!start) return
    active++
    start()
  }
  return {
    async run(urgent, task) {
      if (active < limit) active++
      else await new Promise<void>((resolve) => (urgent ? waiting.urgent : waiting.bulk).push(resolve))
      try {
        return await task()
      } finally {
        active--
        startNext()
      }
    },
  }
}
