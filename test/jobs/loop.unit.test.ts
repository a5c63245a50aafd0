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

  it('a wake ends the idle pause at once, and a wake during a run runs it again right after', async () => {
    let runs = 0
    let release: (() => void) | undefined
    const loop = startLoop(
      ctx,
      defineLoop({
        name: 'woken',
        idleMs: 60_000,
        errorBackoffMs: 5,
        run: async () => {
          runs++
          // The second run waits until the test lets it go, so a wake can arrive during it.
          if (runs === 2) await new Promise<void>((resolve) => (release = resolve))
          return false
        },
      }),
    )
    await vi.waitFor(() => expect(runs).toBe(1))
    loop.wake()
    await vi.waitFor(() => expect(release).toBeDefined(), { timeout: 1_000 })
    loop.wake()
    release?.()
    await vi.waitFor(() => expect(runs).toBe(3), { timeout: 1_000 })
    await loop.stop()
  })

  it('runs woken sooner than wakeGapMs after the last run began wait for the rest of the gap', async () => {
    const starts: number[] = []
    const loop = startLoop(
      ctx,
      defineLoop({
        name: 'gapped',
        idleMs: 60_000,
        errorBackoffMs: 5,
        wakeGapMs: 200,
        run: async () => {
          starts.push(performance.now())
          return false
        },
      }),
    )
    await vi.waitFor(() => expect(starts).toHaveLength(1))
    loop.wake()
    await vi.waitFor(() => expect(starts).toHaveLength(2), { timeout: 1_000 })
    await loop.stop()
    const [first = 0, second = 0] = starts
    expect(second - first).toBeGreaterThanOrEqual(195)
  })

  it('stop ends an idle pause and the error backoff at once', async () => {
    const idle = startLoop(ctx, defineLoop({ name: 'idle', idleMs: 60_000, errorBackoffMs: 5, run: async () => false }))
    const failing = startLoop(
      ctx,
      defineLoop({
        name: 'backing-off',
        idleMs: 5,
        errorBackoffMs: 60_000,
        run: async () => {
          throw new Error('down')
        },
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    const started = performance.now()
    await Promise.all([idle.stop(), failing.stop()])
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})
