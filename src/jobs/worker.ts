import type { AppContext } from '../context.js'
import { type JobDefinition, jobHeartbeatRefreshSeconds, queueOptions } from './define.js'
import { type LoopDefinition, startLoop } from './loop.js'

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

export async function startWorkers(
  ctx: AppContext,
  jobs: readonly JobDefinition[],
  loops: readonly LoopDefinition[] = [],
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
  for (const loop of loops) {
    const running = startLoop(ctx, loop)
    ctx.onClose(() => running.stop())
  }
}
