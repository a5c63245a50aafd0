import { sql } from 'drizzle-orm'
import type { Queue, SendOptions } from 'pg-boss'
import { fromDrizzle } from 'pg-boss'
import type { z } from 'zod'
import type { AppContext } from '../context.js'
import type { Transaction } from '../db/client.js'

export type JobDefinition<Schema extends z.ZodType = z.ZodType> = {
  name: string
  data: Schema
  queue?: Omit<Queue, 'name'>
  /** How many jobs one fetch claims; handlers get the whole batch so they can work set-based. */
  batchSize?: number
  /** How often an idle worker looks for jobs (pg-boss default 2 s; minimum 0.5 s). */
  pollingIntervalSeconds?: number
  /** Cron expression (UTC) for recurring jobs. */
  cron?: string
  handle(ctx: AppContext, jobs: z.infer<Schema>[]): Promise<void>
}

/**
 * A job whose worker stops beating for `heartbeatSeconds` (JOB_HEARTBEAT_SECONDS, default 20) is failed and
 * retried by pg-boss's monitor, which runs every half heartbeat (see boss.ts): a job held by a dead process is
 * retried about 1.5 heartbeats (30 s) after the death at worst. A live job beats every quarter heartbeat, so only
 * a process stalled for three quarters of it (15 s) loses its job. Expiry (`expireInSeconds`) is then only a
 * bound on how long a live job may run, not how dead ones are found.
 */
export function jobHeartbeatRefreshSeconds(heartbeatSeconds: number): number {
  return heartbeatSeconds / 4
}

/** How often pg-boss's supervisor and monitor look for stale heartbeats (pg-boss takes whole seconds, ≥ 1). */
export function jobSuperviseIntervalSeconds(heartbeatSeconds: number): number {
  return Math.max(1, Math.round(heartbeatSeconds / 2))
}

/** The queue's options as created: every queue has a heartbeat unless its definition says otherwise. */
export function queueOptions(job: JobDefinition, heartbeatSeconds: number): Omit<Queue, 'name'> {
  return { heartbeatSeconds, ...job.queue }
}

export function defineJob<Schema extends z.ZodType>(definition: JobDefinition<Schema>): JobDefinition<Schema> {
  return definition
}

/** Enqueues inside the caller's transaction, so the job exists exactly when the work that asked for it commits. */
export async function enqueue<Schema extends z.ZodType>(
  ctx: Pick<AppContext, 'boss'>,
  job: JobDefinition<Schema>,
  data: z.infer<Schema>,
  options: SendOptions & { tx?: Transaction } = {},
): Promise<string | null> {
  const { tx, ...sendOptions } = options
  return ctx.boss.send(job.name, data as object, tx ? { ...sendOptions, db: fromDrizzle(tx, sql) } : sendOptions)
}
