import type { AppContext } from '../context.js'

/**
 * A background loop for work that must start within a fraction of a second (pg-boss polls every few
 * seconds): `run` is called again at once while it reports more work, else after `idleMs`.
 */
export type LoopDefinition = {
  name: string
  idleMs: number
  /** Pause after a failure, so a failing batch does not spin. */
  errorBackoffMs: number
  /** Returns true when it did a full batch and should run again immediately. */
  run(ctx: AppContext): Promise<boolean>
  /**
   * A cheap look (one statement, no transaction, no lock) asked after each pause, before `run`: while it finds
   * nothing, `run` is skipped until the next tick. An idle loop then costs one statement a tick instead of a
   * claim's transaction; a loop going straight on after a full batch is not asked.
   */
  hasWork?(ctx: AppContext): Promise<boolean>
}

export function defineLoop(definition: LoopDefinition): LoopDefinition {
  return definition
}

export type RunningLoop = { stop(): Promise<void> }

export function startLoop(ctx: AppContext, loop: LoopDefinition): RunningLoop {
  let stopped = false
  let wake: (() => void) | undefined
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  const done = (async () => {
    let more = false
    while (!stopped) {
      try {
        // After a full batch more is likely: run at once without looking first.
        const worthRunning: boolean = more || !loop.hasWork || (await loop.hasWork(ctx))
        more = worthRunning && (await loop.run(ctx))
      } catch (err) {
        more = false
        if (stopped) break
        ctx.log.error({ err, loop: loop.name }, 'background loop failed')
        await pause(loop.errorBackoffMs)
        continue
      }
      if (!more && !stopped) await pause(loop.idleMs)
    }
  })()
  return {
    async stop() {
      stopped = true
      wake?.()
      await done
    },
  }
}
