import type { Database } from '../../db/client.js'
import { publishEvents } from '../../events/bus.js'
import type { Logger } from '../../logger.js'
import { applyPendingProviderReports } from '../feedback/pending-reports.js'
import { applyEmailFeedback } from '../feedback/service.js'
import type { EmailMetrics } from '../metrics/registry.js'
import { emailSentEvent } from './events.js'
import {
  type FailedUpdate,
  markEmailsFailed,
  markEmailsForRetry,
  markEmailsSent,
  type RetryUpdate,
  type SentUpdate,
} from './sql.js'

export type OutcomeRecorder = {
  /** `acceptedAt`: when the email was accepted, for the delivery latency. */
  sent(update: SentUpdate, acceptedAt: Date): void
  retry(update: RetryUpdate): void
  failed(update: FailedUpdate): void
  /** A permanent refusal of the recipient by the receiving server: failed, then applied as a permanent bounce. */
  bounced(update: FailedUpdate): void
  /** Writes everything recorded so far; resolves once it is in the database. */
  drain(): Promise<void>
  /** Drops what is not written yet, as a killed process would. */
  discard(): void
}

type Batch = { sent: SentUpdate[]; retry: RetryUpdate[]; failed: FailedUpdate[]; bounced: FailedUpdate[] }

const emptyBatch = (): Batch => ({ sent: [], retry: [], failed: [], bounced: [] })

// Each flush is a transaction with a WAL flush of its own: at 1,000 emails/s a 5 ms delay meant ~200 of them a
// second and a quarter more PostgreSQL CPU per email than 20 ms. The cost: a crash between the SMTP server's
// reply and the flush may send up to 20 ms worth of emails again, as it always could for 5 ms.
const flushDelayMs = 20
const flushBatchSize = 200
const failedFlushDelayMs = 1_000

/**
 * Outcomes are written in small batches (every 20 milliseconds or every 200 emails): one UPDATE per
 * kind instead of one per email keeps the database off the critical path of the send rate. A flush
 * that fails keeps its outcomes and tries again, so an accepted email is never left to be resent.
 */
export function createOutcomeRecorder(
  db: Database,
  log: Logger,
  metrics: EmailMetrics,
  /** After a flush that published events (`email.sent`, bounces) committed. */
  eventsCommitted: () => void = () => {},
): OutcomeRecorder {
  let pending = emptyBatch()
  let timer: NodeJS.Timeout | undefined
  let flushing: Promise<void> | undefined

  const size = () => pending.sent.length + pending.retry.length + pending.failed.length + pending.bounced.length

  const write = async (batch: Batch) => {
    const recorded = await db.transaction(async (tx) => {
      const sent = await markEmailsSent(tx, batch.sent)
      await publishEvents(tx, sent.map(emailSentEvent))
      // Provider reports that came before their id (rare): applied now, after the email.sent they follow.
      await applyPendingProviderReports(
        tx,
        sent.map((row) => row.providerMessageId),
      )
      await markEmailsForRetry(tx, batch.retry)
      const failed = await markEmailsFailed(tx, batch.failed)
      // Bounces are rare: one feedback application each (status, event, unsubscribe, suppression) is fine.
      const at = new Date()
      const bounced = await markEmailsFailed(tx, batch.bounced)
      const refusals = new Map(batch.bounced.map((update) => [update.id, update]))
      for (const id of bounced) {
        const refusal = refusals.get(id)
        const evidence = { source: 'smtp' as const, code: refusal?.code, response: refusal?.error }
        await applyEmailFeedback(tx, { emailId: id }, { kind: 'bounce', bounceType: 'Permanent', at, evidence })
      }
      return { sent: sent.length, failed: failed.length + bounced.length }
    })
    if (recorded.sent + batch.bounced.length > 0) eventsCommitted()
    // Counted once committed, as written: a flush that is retried or discarded counts nothing.
    metrics.delivered(recorded.sent)
    metrics.deferred(batch.retry.length)
    metrics.failed(recorded.failed)
  }

  const flush = (): Promise<void> => {
    if (flushing) return flushing
    clearTimeout(timer)
    timer = undefined
    if (size() === 0) return Promise.resolve()
    const batch = pending
    pending = emptyBatch()
    flushing = write(batch)
      .catch((err: unknown) => {
        log.error({ err }, 'recording email outcomes failed; retrying')
        pending.sent.push(...batch.sent)
        pending.retry.push(...batch.retry)
        pending.failed.push(...batch.failed)
        pending.bounced.push(...batch.bounced)
        return new Promise<void>((resolve) => setTimeout(resolve, failedFlushDelayMs))
      })
      .finally(() => {
        flushing = undefined
        if (size() > 0) schedule()
      })
    return flushing
  }

  const schedule = () => {
    if (flushing) return
    if (size() >= flushBatchSize) void flush()
    else timer ??= setTimeout(() => void flush(), flushDelayMs)
  }

  return {
    sent(update, acceptedAt) {
      metrics.handedOver(acceptedAt, new Date(update.sentAt))
      pending.sent.push(update)
      schedule()
    },
    retry(update) {
      pending.retry.push(update)
      schedule()
    },
    failed(update) {
      pending.failed.push(update)
      schedule()
    },
    bounced(update) {
      pending.bounced.push(update)
      schedule()
    },
    async drain() {
      while (flushing || size() > 0) await flush()
    },
    discard() {
      clearTimeout(timer)
      pending = emptyBatch()
    },
  }
}
