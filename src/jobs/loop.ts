import type { AppContext } from '../context.js'
import { createWakeSignal } from './wake-signal.js'

/**
 * A background loop for work that must start within a fraction of a second (pg-boss polls every few
 * seconds): `run` is called again at once while it reports more work, else after `idleMs`, or as soon as it is
 * woken (`wakeLoop`, after a commit that gave it work). Polling stays the fallback for lost wakes.
 */
export type LoopDefinition = {
  name: string
  idleMs: number
  /** Pause after a failure, so a failing batch does not spin; wakes do not end it. */
  errorBackoffMs: number
  /**
   * The least time between the starts of two runs when woken: under a steady stream of wakes (one per request)
   * the loop then still runs in batches, not once per wake. A wake after a longer rest runs at once.
   */
  wakeGapMs?: number
  /** Returns true when it did a full batch and should run again immediately. */
  run(ctx: AppContext): Promise<boolean>
  /**
   * A cheap look (one statement, no transaction, no lock) asked after each pause, before `run`: while it finds
   * nothing, `run` is skipped until the next tick. An idle loop then costs one statement a tick instead of a
   * claim's transaction; a loop going straight on after a full batch is not asked. `'held'`: there is work, but
   * it cannot be taken yet (committed events behind a transaction still open): look again after `heldMs`, not
   * after the idle pause, which a wake that came too early would otherwise wait out.
   */
  hasWork?(ctx: AppContext): Promise<boolean | 'held'>
  /** How soon to look again after `hasWork` answered `'held'` (at most `idleMs`). */
  heldMs?: number
}

export function defineLoop(definition: LoopDefinition): LoopDefinition {
  return definition
}

export type RunningLoop = {
  /** Ends the pause at once; during a run, the loop runs again right after it instead of pausing. */
  wake(): void
  stop(): Promise<void>
}

export type LoopOptions = {
  /** Overrides the definition's `idleMs` (tests lengthen it to prove that wakes, not polls, start the work). */
  idleMs?: number
  /** Called before each idle pause, e.g. to listen again after losing the LISTEN connection that wakes the loop. */
  beforePause?(): Promise<void>
}

/** One pass of a loop: after its look found nothing (`ran` false), or after `run` finished or failed. */
export type LoopPass = { ctx: AppContext; loop: string; ran: boolean; error?: unknown }

const passListeners = new Set<(pass: LoopPass) => void>()

/**
 * Calls `listener` after every pass of every loop in this process; returns the call that stops it. Tests wait on
 * it (then check the database) instead of polling the database, as pg-boss's `spy` lets them wait on jobs.
 */
export function onLoopPass(listener: (pass: LoopPass) => void): () => void {
  passListeners.add(listener)
  return () => void passListeners.delete(listener)
}

function reportPass(pass: LoopPass): void {
  for (const listener of passListeners) listener(pass)
}

export function startLoop(ctx: AppContext, loop: LoopDefinition, options: LoopOptions = {}): RunningLoop {
  const idleMs = options.idleMs ?? loop.idleMs
  const wakeGapMs = loop.wakeGapMs ?? 0
  let stopped = false
  const signal = createWakeSignal()
  // A plain timer, not the signal: a failing loop must not retry on every wake. `stop` ends it.
  let endSleep: (() => void) | undefined
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      endSleep = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  const done = (async () => {
    let more = false
    let lastRunStarted = Number.NEGATIVE_INFINITY
    while (!stopped) {
      let ran = false
      let look: boolean | 'held' = true
      try {
        // After a full batch more is likely: run at once without looking first.
        if (!more && loop.hasWork) look = await loop.hasWork(ctx)
        if (look === true) {
          ran = true
          lastRunStarted = performance.now()
          more = await loop.run(ctx)
        } else {
          more = false
        }
        reportPass({ ctx, loop: loop.name, ran })
      } catch (err) {
        more = false
        if (stopped) break
        ctx.log.error({ err, loop: loop.name }, 'background loop failed')
        reportPass({ ctx, loop: loop.name, ran, error: err })
        await sleep(loop.errorBackoffMs)
        continue
      }
      if (more || stopped) continue
      await options.beforePause?.().catch(() => {})
      await signal.wait(look === 'held' ? Math.min(loop.heldMs ?? idleMs, idleMs) : idleMs)
      const sinceRun = performance.now() - lastRunStarted
      if (sinceRun < wakeGapMs && !stopped) await sleep(wakeGapMs - sinceRun)
    }
  })()
  return {
    wake: () => signal.notify(),
    async stop() {
      stopped = true
      signal.notify()
      endSleep?.()
      await done
    },
  }
}
