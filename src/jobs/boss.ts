import { PgBoss } from 'pg-boss'
import type { Logger } from '../logger.js'
import { jobSuperviseIntervalSeconds } from './define.js'

export type Boss = PgBoss

/**
 * A worker supervises at the pace of the job heartbeat (JOB_HEARTBEAT_SECONDS), which an API process's
 * queue-statistics cache follows too.
 */
export type BossOptions = { worker: boolean; jobHeartbeatSeconds: number }

/**
 * API processes only enqueue; worker processes also run maintenance and cron schedules, so those are
 * switched on only where jobs are worked.
 */
export async function startBoss(url: string, log: Logger, options: BossOptions): Promise<Boss> {
  const superviseSeconds = jobSuperviseIntervalSeconds(options.jobHeartbeatSeconds)
  const boss = new PgBoss({
    connectionString: url,
    schema: 'pgboss',
    max: options.worker ? 10 : 4,
    supervise: options.worker,
    // The supervisor's monitor pass is what fails jobs whose heartbeat stopped (see define.ts); at pg-boss's
    // default of 60 s a dead process's import would wait up to ~80 s. Its queue statistics run on the same
    // pass: one aggregate over the job table every half heartbeat (10 s by default), for the whole deployment.
    superviseIntervalSeconds: superviseSeconds,
    monitorIntervalSeconds: superviseSeconds,
    schedule: options.worker,
  })
  boss.on('error', (err) => log.error({ err }, 'job queue error'))
  await boss.start()
  return boss
}
