import { sql } from 'drizzle-orm'
import { Gauge, type Registry } from 'prom-client'
import type { Database } from '../../db/client.js'
import type { Boss } from '../../jobs/boss.js'
import type { Logger } from '../../logger.js'
import {
  type EventBusState,
  type OutboxState,
  pendingEventsCountCap,
  type ReputationState,
  readEventBusState,
  readOutboxState,
  readReputationState,
} from './sql.js'

type JobQueueState = { name: string; ready: number; deferred: number; active: number; failed: number }

type Snapshot = {
  outbox: OutboxState
  eventBus: EventBusState
  reputation: ReputationState
  jobQueues: JobQueueState[]
}

export type DatabaseGaugeSource = { db: Database; boss: Boss; log: Logger }

// A scrape must answer even while the database hangs; Prometheus's own scrape timeout is 10 s by default.
const snapshotTimeoutMs = 3_000

async function readSnapshot(source: DatabaseGaugeSource): Promise<Snapshot> {
  const [database, queues] = await Promise.all([
    source.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`SET LOCAL statement_timeout = ${snapshotTimeoutMs}`))
      return {
        outbox: await readOutboxState(tx),
        eventBus: await readEventBusState(tx),
        reputation: await readReputationState(tx),
      }
    }),
    // pg-boss keeps these counts on the queue rows (refreshed by its monitor in worker processes): no job scan.
    source.boss.getQueues(),
  ])
  return {
    ...database,
    jobQueues: queues.map((queue) => ({
      name: queue.name,
      ready: queue.readyCount,
      deferred: queue.deferredCount,
      active: queue.activeCount,
      failed: queue.failedCount,
    })),
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    promise.then(resolve, reject).finally(() => clearTimeout(timer))
  })
}

/**
 * Gauges that describe the whole installation, read from PostgreSQL when scraped (a few indexed queries),
 * never on the send or delivery paths. While the database does not answer, `mailroom_database_up` is 0 and
 * the others read 0 or are left out.
 */
export function registerDatabaseGauges(registry: Registry, source: DatabaseGaugeSource): void {
  // Shared while in flight: one read per scrape, however many gauges (and concurrent scrapers) ask.
  let reading: Promise<Snapshot | undefined> | undefined
  const snapshot = () => {
    reading ??= withTimeout(readSnapshot(source), snapshotTimeoutMs)
      .catch((err: unknown) => {
        source.log.warn({ err }, 'metrics: reading the database gauges failed')
        return undefined
      })
      .finally(() => {
        reading = undefined
      })
    return reading
  }

  const gauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: (gauge: Gauge<L>, snapshot: Snapshot) => void,
  ) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const current = await snapshot()
        this.reset()
        if (current) read(this, current)
      },
    })

  new Gauge({
    name: 'mailroom_database_up',
    help: '1 when the database answered this scrape, 0 when it did not (the database gauges then read 0 or are left out).',
    registers: [registry],
    async collect() {
      this.set((await snapshot()) ? 1 : 0)
    },
  })
  gauge(
    'mailroom_outbox_emails',
    'Emails in the outbox by status: queued (waiting) or sending.',
    ['status'],
    (g, s) => {
      g.set({ status: 'queued' }, s.outbox.queued)
      g.set({ status: 'sending' }, s.outbox.sending)
    },
  )
  gauge('mailroom_outbox_oldest_queued_age_seconds', 'Age of the oldest queued email.', [], (g, s) =>
    g.set(s.outbox.oldestQueuedAgeSeconds),
  )
  gauge(
    'mailroom_event_bus_pending_events',
    `Committed events not yet handed to subscribers (counted up to ${pendingEventsCountCap}).`,
    [],
    (g, s) => g.set(s.eventBus.pendingEvents),
  )
  gauge(
    'mailroom_event_bus_lag_seconds',
    'Age of the next event to hand to subscribers; 0 when none waits.',
    [],
    (g, s) => g.set(s.eventBus.lagSeconds),
  )
  gauge(
    'mailroom_job_queue_jobs',
    "Background jobs by queue and state (ready, deferred, active, failed), as of pg-boss's last monitor pass.",
    ['queue', 'state'],
    (g, s) => {
      for (const queue of s.jobQueues) {
        g.set({ queue: queue.name, state: 'ready' }, queue.ready)
        g.set({ queue: queue.name, state: 'deferred' }, queue.deferred)
        g.set({ queue: queue.name, state: 'active' }, queue.active)
        g.set({ queue: queue.name, state: 'failed' }, queue.failed)
      }
    },
  )
  gauge('mailroom_reputation_sent_7d', 'Emails sent in the last 7 days, all projects.', [], (g, s) =>
    g.set(s.reputation.sent),
  )
  gauge(
    'mailroom_reputation_bounce_rate_7d',
    'Permanent bounces per email sent in the last 7 days, all projects (0 to 1).',
    [],
    (g, s) => g.set(s.reputation.sent > 0 ? s.reputation.bounces / s.reputation.sent : 0),
  )
  gauge(
    'mailroom_reputation_complaint_rate_7d',
    'Complaints per email sent in the last 7 days, all projects (0 to 1).',
    [],
    (g, s) => g.set(s.reputation.sent > 0 ? s.reputation.complaints / s.reputation.sent : 0),
  )
  gauge('mailroom_projects_sending_paused', 'Projects whose sending the reputation guard has paused.', [], (g, s) =>
    g.set(s.reputation.pausedProjects),
  )
}
