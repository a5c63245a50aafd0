import { monitorEventLoopDelay } from 'node:perf_hooks'
import type pg from 'pg'

/**
 * How many campaign emails the outbox keeps in flight, adapted to what transactional mail leaves (AIMD, as TCP paces
 * a connection): every `intervalMs` the window grows while the campaign fills it and nothing is congested, and is
 * halved when a transactional email waited longer than `waitAllowanceMs` beyond the least wait seen lately, or when
 * the event loop ran later than its least lateness lately by more than `eventLoopDelayMs`. Both are measured against
 * their own recent best, not a fixed figure: on a machine that other work keeps busy a fixed figure would hold every
 * campaign at its least window, however little it added. A campaign then takes the CPU and the database that
 * transactional mail leaves, at full speed on an otherwise idle server, and never fewer than `minWindow` emails at
 * once. See docs/decisions/0025.
 */
export type PacingSettings = {
  minWindow: number
  maxWindow: number
  intervalMs: number
  waitAllowanceMs: number
  eventLoopDelayMs: number
  /** Added to the window per interval once a congestion has been seen; before that the window doubles. */
  increase: number
}

/** What the pacer saw over one interval. */
export type PaceSample = {
  /** The longest wait of the transactional emails sent in it (from due to the transport's reply); none sent: undefined. */
  longestWaitMs: number | undefined
  /** How late the event loop's timers ran, on average over the interval. */
  eventLoopDelayMs: number
  /** The campaign claim loop wanted more room than the window left: a larger window would be used. */
  windowFull: boolean
}

export type PaceState = {
  window: number
  congested: boolean
  baseWaitMs: number | undefined
  baseEventLoopDelayMs: number | undefined
}

/** How long a least figure is remembered: the machine's pace changes over minutes, not seconds. */
const leastMemoryMs = 30_000

/** No transactional email for this long: the window may double again until its next congestion. */
const transactionalQuietMs = 5_000

/** The least of the values seen in the current and the previous memory span, so an old least is forgotten in two. */
function leastLately() {
  let current: number | undefined
  let previous: number | undefined
  let startedAt = Number.NEGATIVE_INFINITY
  return {
    observe(value: number, nowMs: number) {
      if (nowMs - startedAt >= leastMemoryMs) {
        previous = current
        current = undefined
        startedAt = nowMs
      }
      current = current === undefined ? value : Math.min(current, value)
    },
    least: () => (current === undefined ? previous : previous === undefined ? current : Math.min(current, previous)),
  }
}

/**
 * The control law alone, on the samples it is given, so tests drive it interval by interval. After a halving the
 * window neither shrinks nor grows for one more interval: the emails already in flight were claimed under the old
 * window and say nothing yet about the new one.
 */
export function createPaceController(settings: PacingSettings) {
  let window = settings.minWindow
  let slowStart = true
  let settling = false
  const baseWait = leastLately()
  const baseDelay = leastLately()
  let held = 0
  let lastWaitAtMs = Number.NEGATIVE_INFINITY

  const currentWindow = () => (held > 0 ? settings.minWindow : window)

  return {
    window: currentWindow,
    /** Samples one transactional email's wait into the baseline (the least wait lately). */
    observeWait(waitMs: number, nowMs: number) {
      baseWait.observe(waitMs, nowMs)
      lastWaitAtMs = nowMs
    },
    /** Ends an interval; returns the window for the next. */
    update(sample: PaceSample, nowMs: number): PaceState {
      baseDelay.observe(sample.eventLoopDelayMs, nowMs)
      const baseWaitMs = baseWait.least()
      const baseEventLoopDelayMs = baseDelay.least() ?? sample.eventLoopDelayMs
      const waited =
        sample.longestWaitMs !== undefined &&
        baseWaitMs !== undefined &&
        sample.longestWaitMs > baseWaitMs + settings.waitAllowanceMs
      const late = sample.eventLoopDelayMs > baseEventLoopDelayMs + settings.eventLoopDelayMs
      const congested = waited || late
      if (held > 0) {
        window = settings.minWindow
      } else if (settling) {
        settling = false
      } else if (congested) {
        slowStart = false
        settling = true
        window = Math.max(settings.minWindow, Math.floor(window / 2))
      } else if (sample.windowFull) {
        // Doubling overshoots by the time a congestion shows; with transactional mail about, that overshoot is its
        // tail, so the window then grows by steps from the start.
        const doubling = slowStart && nowMs - lastWaitAtMs > transactionalQuietMs
        window = Math.min(settings.maxWindow, doubling ? window * 2 : window + settings.increase)
      }
      return { window: currentWindow(), congested, baseWaitMs, baseEventLoopDelayMs }
    },
    /**
     * Keeps the window at its least until the returned call: while this process queues a large audience, the
     * fan-out and transactional mail share the machine with as little campaign mail as possible. The window starts
     * again from its least afterwards.
     */
    hold(): () => void {
      held++
      window = settings.minWindow
      let released = false
      return () => {
        if (released) return
        released = true
        held--
        if (held === 0) slowStart = true
      }
    },
  }
}

type PaceController = ReturnType<typeof createPaceController>

export type CampaignPacer = {
  /** Campaign emails that may be in flight now. */
  window(): number
  /** A transactional email got the transport's reply `waitedMs` after it was due. */
  transactionalWaited(waitedMs: number): void
  /** The campaign claim loop found less room than it claims at once. */
  windowFull(): void
  /** The latest interval's state, for metrics and benchmarks. */
  state(): PaceState
  stop(): void
}

export type PacerOptions = Partial<PacingSettings> & {
  /** Called when the window grew, so a claim loop waiting for room looks again now. */
  onGrow: () => void
}

const defaultPacing: Omit<PacingSettings, 'maxWindow'> = {
  minWindow: 2,
  intervalMs: 100,
  waitAllowanceMs: 30,
  eventLoopDelayMs: 20,
  increase: 4,
}

/** The pacers of this process, by the pool they deliver through: the fan-out holds them while it queues an audience. */
const pacers = new WeakMap<pg.Pool, Set<PaceController>>()

/** Holds every outbox of this process on `pool` at its least campaign window until the returned call. */
export function holdCampaignPace(pool: pg.Pool): () => void {
  const releases = [...(pacers.get(pool) ?? [])].map((controller) => controller.hold())
  return () => {
    for (const release of releases) release()
  }
}

/** Runs a controller on a timer, fed by the event loop's delay and the waits the outbox reports. */
export function startCampaignPacer(pool: pg.Pool, options: PacerOptions & { maxWindow: number }): CampaignPacer {
  const settings: PacingSettings = { ...defaultPacing, ...options }
  settings.minWindow = Math.min(settings.minWindow, settings.maxWindow)
  const controller = createPaceController(settings)
  let registered = pacers.get(pool)
  if (!registered) {
    registered = new Set()
    pacers.set(pool, registered)
  }
  registered.add(controller)

  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  let longestWaitMs: number | undefined
  let windowFull = false
  let state: PaceState = {
    window: controller.window(),
    congested: false,
    baseWaitMs: undefined,
    baseEventLoopDelayMs: undefined,
  }
  const timer = setInterval(() => {
    const before = controller.window()
    // In ns, from the timer's resolution on; the mean, as one garbage collection's pause is no congestion.
    const eventLoopDelayMs = delay.count > 0 ? delay.mean / 1e6 : settings.intervalMs
    state = controller.update({ longestWaitMs, eventLoopDelayMs, windowFull }, performance.now())
    delay.reset()
    longestWaitMs = undefined
    windowFull = false
    if (state.window > before) options.onGrow()
  }, settings.intervalMs).unref()

  return {
    window: () => controller.window(),
    transactionalWaited(waitedMs) {
      controller.observeWait(waitedMs, performance.now())
      longestWaitMs = longestWaitMs === undefined ? waitedMs : Math.max(longestWaitMs, waitedMs)
    },
    windowFull() {
      windowFull = true
    },
    state: () => state,
    stop() {
      clearInterval(timer)
      delay.disable()
      registered.delete(controller)
    },
  }
}
