import { describe, expect, it, vi } from 'vitest'
import type { AppContext } from '../../src/context.js'
import { defineLoop, startLoop } from '../../src/jobs/loop.js'

const ctx = { log: { error: vi.fn() } } as unknown as AppContext

describe('background loop', () => {
  it('looks before each run after a pause, and runs straight on after a full batch without looking', async () => {
    const calls: string[] = []
    // The look finds nothing twice, then work: a full batch, another full batch, then a partial one.
    const looks = [false, false, true]
    const batches = [true, true, false]
    const loop = startLoop(
      ctx,
      defineLoop({
        name: 'test',
        idleMs: 5,
        errorBackoffMs: 5,
        hasWork: async () => {
          calls.push('look')
          return looks.shift() ?? false
        },
        run: async () => {
          calls.push('run')
          return batches.shift() ?? false
        },
      }),
    )
    await vi.waitFor(() => expect(calls.length).toBeGreaterThanOrEqual(7))
    await loop.stop()
    expect(calls.slice(0, 7)).toEqual(['look', 'look', 'look', 'run', 'run', 'run', 'look'])
  })

  it('a failing look is logged and asked again after the backoff, never skipping to run', async () => {
    const error = vi.fn()
    let looks = 0
    const run = vi.fn(async () => false)
    const loop = startLoop(
      { log: { error } } as unknown as AppContext,
      defineLoop({
        name: 'failing-look',
        idleMs: 5,
        errorBackoffMs: 5,
        hasWork: async () => {
          looks++
          throw new Error('database down')
        },
        run,
      }),
    )
    await vi.waitFor(() => expect(looks).toBeGreaterThanOrEqual(3))
    await loop.stop()
    expect(run).not.toHaveBeenCalled()
    expect(error).toHaveBeenCalledWith(expect.objectContaining({ loop: 'failing-look' }), 'background loop failed')
  })
})
