import { PgBoss } from 'pg-boss'
import type { Logger } from '../logger.js'
import { jobSuperviseIntervalSeconds } from './define.js'

export type Boss = PgBoss

/** JOB_HEARTBEAT_SECONDS's default (config.ts). */
const defaultJobHeartbeatSeconds = 20

/**
 * A worker supervises at the pace of the job heartbeat (JOB_HEARTBEAT_SECONDS), which an API process's
 * queue-statistics cache follows too; a boss that only creates queues (the test template's) needs none.
 */
export type BossOptions =
  | { worker: false; jobHeartbeatSeconds?: number }
  | { worker: true; jobHeartbeatSeconds: number }

/**
 * API processes only enqueue; worker processes also run maintenance and cron schedules, so those are
 * switched on only where jobs are worked.
 */
export async function startBoss(url: string, log: Logger, options: BossOptions): Promise<Boss> {
  // Without a heartbeat (a boss that only creates queues) nothing is supervised; the statistics cache keeps the
  // default heartbeat's pace.
  const superviseSeconds = jobSuperviseIntervalSeconds(options.jobHeartbeatSeconds ?? defaultJobHeartbeatSeconds)
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
