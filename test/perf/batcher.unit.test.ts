import { describe, expect, it } from 'vitest'
import { allOk, createBatcher } from '../../src/db/batcher.js'

type Item = { key: string; n: number }

/** A batcher whose batches wait until the test releases them, recording what ran together. */
function gatedBatcher(maxInFlight: number) {
  const batches: number[][] = []
  const gates: (() => void)[] = []
  const batcher = createBatcher<Item, number>({
    maxSize: 10,
    maxInFlight,
    keyOf: (item) => item.key,
    run: async (items) => {
      batches.push(items.map((item) => item.n))
      await new Promise<void>((resolve) => gates.push(resolve))
      return allOk(items.map((item) => item.n))
    },
  })
  const releaseNext = async () => {
    await new Promise((resolve) => setImmediate(resolve))
    gates.shift()?.()
  }
  return { batcher, batches, gates, releaseNext }
}

/** Lets pending batches finish their bookkeeping and the next flush run. */
const turn = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe('the group-commit batcher', () => {
  it('gathers items that arrive together into one batch, each settling with its own outcome', async () => {
    const { batcher, batches, releaseNext } = gatedBatcher(3)
    const results = Promise.all([1, 2, 3].map((n) => batcher({ key: `k${n}`, n })))
    await releaseNext()
    expect(await results).toEqual([1, 2, 3])
    expect(batches).toEqual([[1, 2, 3]])
  })

  it('never runs an item while a batch holding its key is in flight, so one key is written in arrival order', async () => {
    const { batcher, batches, gates, releaseNext } = gatedBatcher(3)
    const first = batcher({ key: 'a', n: 1 })
    await turn()
    // Batch [1] is in flight; 2 shares its key, 3 and 4 do not, 5 shares it too.
    const rest = [batcher({ key: 'a', n: 2 }), batcher({ key: 'b', n: 3 }), batcher({ key: 'c', n: 4 })]
    const last = batcher({ key: 'a', n: 5 })
    await turn()
    expect(batches).toEqual([[1], [3, 4]])
    expect(gates).toHaveLength(2)

    await releaseNext() // [1] ends: 2 may run now, 5 still waits behind it
    await first
    await turn()
    expect(batches).toEqual([[1], [3, 4], [2]])

    await releaseNext()
    await releaseNext()
    await turn()
    expect(batches).toEqual([[1], [3, 4], [2], [5]])
    await releaseNext()
    expect(await Promise.all([...rest, last])).toEqual([2, 3, 4, 5])
  })
})
