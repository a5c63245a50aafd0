import { isSoleWorker } from '../config.js'
import type { AppContext } from '../context.js'
import { createNotificationListener } from '../db/notification-listener.js'
import { registerLocalWaiter } from '../db/wake.js'
import { type JobDefinition, jobHeartbeatRefreshSeconds, queueOptions } from './define.js'
import { type LoopDefinition, type RunningLoop, startLoop } from './loop.js'
import { loopsChannel } from './loop-wake.js'

/**
 * Creates every queue once; API processes need them too, to enqueue. A queue made by an older version gets
 * the current crash-recovery settings (heartbeat, expiry), which pg-boss copies onto each job it creates.
 */
export async function createQueues(ctx: AppContext, jobs: readonly JobDefinition[]): Promise<void> {
  const existing = new Map((await ctx.boss.getQueues()).map((queue) => [queue.name, queue]))
  for (const job of jobs) {
    const options = queueOptions(job, ctx.config.crashRecovery.jobHeartbeatSeconds)
    const queue = existing.get(job.name)
    if (!queue) {
      await ctx.boss.createQueue(job.name, options)
    } else if (
      queue.heartbeatSeconds !== options.heartbeatSeconds ||
      (options.expireInSeconds !== undefined && queue.expireInSeconds !== options.expireInSeconds)
    ) {
      const { heartbeatSeconds, expireInSeconds } = options
      await ctx.boss.updateQueue(job.name, { heartbeatSeconds, ...(expireInSeconds ? { expireInSeconds } : {}) })
    }
  }
}

export type LoopsOptions = {
  /** Every loop's idle pause instead of its own (tests lengthen it to prove that wakes start the work). */
  idleMs?: number
}

export async function startWorkers(
  ctx: AppContext,
  jobs: readonly JobDefinition[],
  loops: readonly LoopDefinition[] = [],
  loopsOptions: LoopsOptions = {},
): Promise<void> {
  for (const job of jobs) {
    const options = {
      batchSize: job.batchSize ?? 1,
      pollingIntervalSeconds: job.pollingIntervalSeconds ?? 2,
      heartbeatRefreshSeconds: jobHeartbeatRefreshSeconds(ctx.config.crashRecovery.jobHeartbeatSeconds),
    }
    await ctx.boss.work(job.name, options, async (batch) => {
      const data = batch.map((item) => job.data.parse(item.data))
      await job.handle(ctx, data)
    })
    if (job.cron) await ctx.boss.schedule(job.name, job.cron, {}, { tz: 'UTC' })
  }
  await startLoops(ctx, loops, loopsOptions)
}

/**
 * Starts the loops, woken directly from this process (`wakeLoop`) and from others through one LISTEN connection
 * (a payload naming no loop of this version wakes them all).
 */
async function startLoops(ctx: AppContext, loops: readonly LoopDefinition[], options: LoopsOptions): Promise<void> {
  if (loops.length === 0) return
  const running = new Map<string, RunningLoop>()
  const wake = (payload: string | undefined) => {
    const named = payload === undefined ? undefined : running.get(payload)
    for (const loop of named ? [named] : running.values()) loop.wake()
  }
  const listener = createNotificationListener(ctx.pool, loopsChannel, wake, ctx.log)
  // Listening before the first pause: a wake sent as the process starts is not lost. Failing, the loops poll.
  await listener.ensure().catch((err: unknown) => ctx.log.warn({ err }, 'LISTEN for loop wakes failed; polling'))
  for (const loop of loops) {
    const started = startLoop(ctx, loop, {
      ...(options.idleMs !== undefined && { idleMs: options.idleMs }),
      beforePause: () => listener.ensure(),
    })
    running.set(loop.name, started)
  }
  const unregister = registerLocalWaiter(ctx.pool, loopsChannel, { wake, soleWorker: isSoleWorker(ctx.config) })
  // Hooks run in order: the loops stop first, then the LISTEN connection is let go.
  ctx.onClose(async () => {
    unregister()
    await Promise.all([...running.values()].map((loop) => loop.stop()))
  })
  ctx.onClose(() => listener.close())
}
