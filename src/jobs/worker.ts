import type { AppContext } from '../context.js'
import type { JobDefinition } from './define.js'
import { type LoopDefinition, startLoop } from './loop.js'

/** Creates every queue once; API processes need them too, to enqueue. */
export async function createQueues(ctx: AppContext, jobs: readonly JobDefinition[]): Promise<void> {
  const existing = new Set((await ctx.boss.getQueues()).map((queue) => queue.name))
  for (const job of jobs) {
    if (!existing.has(job.name)) await ctx.boss.createQueue(job.name, job.queue)
  }
}

export async function startWorkers(
  ctx: AppContext,
  jobs: readonly JobDefinition[],
  loops: readonly LoopDefinition[] = [],
): Promise<void> {
  for (const job of jobs) {
    const options = { batchSize: job.batchSize ?? 1, pollingIntervalSeconds: job.pollingIntervalSeconds ?? 2 }
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
