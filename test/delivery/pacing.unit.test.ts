import { describe, expect, it } from 'vitest'
import { createPaceController, type PaceSample } from '../../src/modules/delivery/pacing.js'

const settings = {
  minWindow: 4,
  maxWindow: 256,
  intervalMs: 100,
  waitAllowanceMs: 30,
  eventLoopDelayMs: 40,
  increase: 4,
}
const quiet: PaceSample = { longestWaitMs: 10, eventLoopDelayMs: 5, windowFull: true }
/** No transactional mail at all. */
const idle: PaceSample = { ...quiet, longestWaitMs: undefined }

/** One interval (100 ms on the controller's clock) per sample. */
function windows(controller: ReturnType<typeof createPaceController>, samples: PaceSample[]): number[] {
  return samples.map((sample) => {
    clockMs += settings.intervalMs
    if (sample.longestWaitMs !== undefined) controller.observeWait(sample.longestWaitMs, clockMs)
    return controller.update(sample, clockMs).window
  })
}
let clockMs = 0

describe('campaign pacing', () => {
  it('doubles a campaign window that is used and uncongested, up to its largest, while no transactional mail goes', () => {
    const controller = createPaceController(settings)
    expect(controller.window()).toBe(4)
    expect(windows(controller, Array(8).fill(idle))).toEqual([8, 16, 32, 64, 128, 256, 256, 256])
  })

  it('grows by steps, never doubling, while transactional mail goes', () => {
    const controller = createPaceController(settings)
    expect(windows(controller, Array(4).fill(quiet))).toEqual([8, 12, 16, 20])
  })

  it('does not grow a window the campaign does not fill', () => {
    const controller = createPaceController(settings)
    expect(windows(controller, Array(5).fill({ ...quiet, windowFull: false }))).toEqual([4, 4, 4, 4, 4])
  })

  it('halves the window when transactional mail waits, then grows it back by steps once it does not', () => {
    const controller = createPaceController(settings)
    windows(controller, Array(5).fill(idle))
    windows(controller, [quiet])
    expect(controller.window()).toBe(132)
    // 10 ms is the least wait seen: 45 ms is beyond the 30 ms allowance.
    const waited = { ...quiet, longestWaitMs: 45 }
    // Halved once, left alone for an interval (the emails in flight were claimed under the old window), halved again.
    expect(windows(controller, [waited, waited, waited, waited])).toEqual([66, 66, 33, 33])
    // Back to additive growth: 4 more emails per interval.
    expect(windows(controller, [quiet, quiet, quiet])).toEqual([37, 41, 45])
    // A wait within the allowance is no congestion.
    expect(windows(controller, [{ ...quiet, longestWaitMs: 39 }])).toEqual([49])
  })

  it('halves the window when the event loop runs later than its least lately, even with no transactional mail', () => {
    const controller = createPaceController(settings)
    windows(controller, Array(4).fill(idle))
    expect(controller.window()).toBe(64)
    // 5 ms is the least lateness seen: 80 ms is beyond the 40 ms allowance, 30 ms within it.
    expect(windows(controller, [{ ...idle, eventLoopDelayMs: 30 }])).toEqual([128])
    windows(controller, [idle])
    const late = { longestWaitMs: undefined, eventLoopDelayMs: 80, windowFull: true }
    expect(windows(controller, Array(12).fill(late))).toEqual([128, 128, 64, 64, 32, 32, 16, 16, 8, 8, 4, 4])
    // Never below its least: the campaign still moves.
    expect(windows(controller, [late, late, late])).toEqual([4, 4, 4])
  })

  it('keeps the least window while held, and starts again from it, doubling, once released', () => {
    const controller = createPaceController(settings)
    windows(controller, Array(6).fill(idle))
    expect(controller.window()).toBe(256)
    const release = controller.hold()
    expect(controller.window()).toBe(4)
    expect(windows(controller, [idle, idle])).toEqual([4, 4])
    release()
    expect(windows(controller, [idle, idle, idle])).toEqual([8, 16, 32])
  })
})
