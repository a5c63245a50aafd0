import { describe, expect, it } from 'vitest'
import { allOk } from '../../src/db/batcher.js'
import { createAttemptRecorder } from '../../src/modules/webhooks/attempt-recorder.js'
import type { AttemptOutcome } from '../../src/modules/webhooks/sql.js'

function outcome(messageId: string, succeeded: boolean): AttemptOutcome {
  return {
    messageId,
    endpointId: 'endpoint',
    at: new Date(),
    succeeded,
    responseStatus: succeeded ? 200 : 500,
    responseBody: '',
    error: null,
    latencyMs: 1,
    url: 'https://hooks.example.com/',
    retryAt: succeeded ? null : new Date(),
  }
}

/** A recorder whose batches end only when told, noting which ran and which overlapped. */
function recorderUnderTest() {
  const started: string[][] = []
  const running = new Set<string>()
  const overlaps: string[][] = []
  const finish = new Map<string, () => void>()
  const record = createAttemptRecorder({
    maxSize: 100,
    maxInFlight: 3,
    async run(outcomes) {
      const ids = outcomes.map((item) => item.messageId)
      const name = ids.join(',')
      started.push(ids)
      if (running.size > 0) overlaps.push([...running, name])
      running.add(name)
      await new Promise<void>((resolve) => finish.set(name, resolve))
      running.delete(name)
      return allOk(outcomes.map(() => undefined))
    },
  })
  const tick = () => new Promise((resolve) => setImmediate(resolve))
  return { record, started, overlaps, finish: (name: string) => finish.get(name)?.(), tick }
}

describe('recording attempts in batches', () => {
  it('records batches of successes side by side, and a batch holding a failure alone, in order', async () => {
    const recorder = recorderUnderTest()
    const first = recorder.record(outcome('a', true))
    await recorder.tick()
    const second = recorder.record(outcome('b', true))
    await recorder.tick()
    // Successes do not wait for the batch before them.
    expect(recorder.started).toEqual([['a'], ['b']])

    const failed = recorder.record(outcome('c', false))
    const after = recorder.record(outcome('d', true))
    await recorder.tick()
    // The failure waits for both batches before it, and what came after it waits with it.
    expect(recorder.started).toHaveLength(2)
    recorder.finish('a')
    await first
    await recorder.tick()
    expect(recorder.started).toHaveLength(2)
    recorder.finish('b')
    await second
    await recorder.tick()
    expect(recorder.started).toEqual([['a'], ['b'], ['c', 'd']])

    const later = recorder.record(outcome('e', true))
    await recorder.tick()
    // Nothing starts while the failure's batch is being recorded.
    expect(recorder.started).toHaveLength(3)
    recorder.finish('c,d')
    await Promise.all([failed, after])
    await recorder.tick()
    expect(recorder.started.at(-1)).toEqual(['e'])
    recorder.finish('e')
    await later
    expect(recorder.overlaps).toEqual([['a', 'b']])
  })

  it('rejects the attempts of a batch that failed, each with the error', async () => {
    const record = createAttemptRecorder({
      maxSize: 100,
      maxInFlight: 3,
      run: async () => {
        throw new Error('deadlock detected')
      },
    })
    await expect(record(outcome('a', true))).rejects.toThrow('deadlock detected')
  })
})
