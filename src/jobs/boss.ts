import { PgBoss } from 'pg-boss'
import type { Logger } from '../logger.js'

export type Boss = PgBoss

/**
 * API processes only enqueue; worker processes also run maintenance and cron schedules, so those are
 * switched on only where jobs are worked.
 */
export async function startBoss(url: string, log: Logger, options: { worker: boolean }): Promise<Boss> {
  const boss = new PgBoss({
    connectionString: url,
    schema: 'pgboss',
    max: options.worker ? 10 : 4,
    supervise: options.worker,
    // The supervisor's monitor pass is what fails jobs whose heartbeat stopped (see define.ts); at pg-boss's
    // default of 60 s a dead process's import would wait up to ~80 s. Its queue statistics run on the same
    // pass: one aggregate over the job table every 10 s, for the whole deployment.
    superviseIntervalSeconds: 10,
    monitorIntervalSeconds: 10,
    schedule: options.worker,
  })
  boss.on('error', (err) => log.error({ err }, 'job queue error'))
  await boss.start()
  return boss
}
