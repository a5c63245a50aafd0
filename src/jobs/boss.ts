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
    schedule: options.worker,
  })
  boss.on('error', (err) => log.error({ err }, 'job queue error'))
  await boss.start()
  return boss
}
