import type { Database } from '../../db/client.js'
import type { Logger } from '../../logger.js'
import { publishEvents } from '../events/bus.js'
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
  sent(update: SentUpdate): void
  retry(update: RetryUpdate): void
  failed(update: FailedUpdate): void
  /** Writes everything recorded so far; resolves once it is in the database. */
  drain(): Promise<void>
  /** Drops what is not written yet, as a killed process would. */
  discard(): void
}

type Batch = { sent: SentUpdate[]; retry: RetryUpdate[]; failed: FailedUpdate[] }

const flushDelayMs = 5
const flushBatchSize = 50
const failedFlushDelayMs = 1_000

/**
 * Outcomes are written in small batches (every few milliseconds or every 50 emails): one UPDATE per
 * kind instead of one per email keeps the database off the critical path of the send rate. A flush
 * that fails keeps its outcomes and tries again, so an accepted email is never left to be resent.
 */
export function createOutcomeRecorder(db: Database, log: Logger): OutcomeRecorder {
  let pending: Batch = { sent: [], retry: [], failed: [] }
  let timer: NodeJS.Timeout | undefined
  let flushing: Promise<void> | undefined

  const size = () => pending.sent.length + pending.retry.length + pending.failed.length

  const write = async (batch: Batch) => {
    await db.transaction(async (tx) => {
      const sent = await markEmailsSent(tx, batch.sent)
      await publishEvents(tx, sent.map(emailSentEvent))
      await markEmailsForRetry(tx, batch.retry)
      await markEmailsFailed(tx, batch.failed)
    })
  }

  const flush = (): Promise<void> => {
    if (flushing) return flushing
    clearTimeout(timer)
    timer = undefined
    if (size() === 0) return Promise.resolve()
    const batch = pending
    pending = { sent: [], retry: [], failed: [] }
    flushing = write(batch)
      .catch((err: unknown) => {
        log.error({ err }, 'recording email outcomes failed; retrying')
        pending.sent.push(...batch.sent)
        pending.retry.push(...batch.retry)
        pending.failed.push(...batch.failed)
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
    sent(update) {
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
    async drain() {
      while (flushing || size() > 0) await flush()
    },
    discard() {
      clearTimeout(timer)
      pending = { sent: [], retry: [], failed: [] }
    },
  }
}
