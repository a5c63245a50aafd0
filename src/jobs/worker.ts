import type { AppContext } from '../context.js'
import { createNotificationListener } from '../db/notification-listener.js'
import { type JobDefinition, jobHeartbeatRefreshSeconds, queueOptions } from './define.js'
import { type LoopDefinition, startLoop } from './loop.js'
import { loopsChannel, registerLocalLoop, wakeLoopsInProcess } from './loop-wake.js'

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
  const known = new Set(loops.map((loop) => loop.name))
  const listener = createNotificationListener(
    ctx.pool,
    loopsChannel,
    (payload) => wakeLoopsInProcess(ctx.pool, payload !== undefined && known.has(payload) ? payload : undefined),
    ctx.log,
  )
  // Listening before the first pause: a wake sent as the process starts is not lost. Failing, the loops poll.
  await listener.ensure().catch((err: unknown) => ctx.log.warn({ err }, 'LISTEN for loop wakes failed; polling'))
  // Without DATABASE_URL the database is this process's own embedded one, behind the DATA_DIR lock.
  const soleWorker = ctx.config.databaseUrl === undefined
  for (const loop of loops) {
    const running = startLoop(ctx, loop, {
      ...(options.idleMs !== undefined && { idleMs: options.idleMs }),
      beforePause: () => listener.ensure(),
    })
    const unregister = registerLocalLoop(ctx.pool, { name: loop.name, wake: running.wake, soleWorker })
    ctx.onClose(async () => {
      unregister()
      await running.stop()
    })
  }
  // Hooks run in order: the loops stop first.
  ctx.onClose(() => listener.close())
}
