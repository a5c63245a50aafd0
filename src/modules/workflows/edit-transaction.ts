import type { Database, Transaction } from '../../db/client.js'
import { transactionRetryingDeadlock } from '../../db/deadlock-retry.js'

/**
 * One transaction of a workflow edit, run again when PostgreSQL breaks a deadlock by aborting it. An edit locks the
 * workflow row and then a step; the engine, saving an execution, holds its steps' keys and then updates the
 * workflow's counters: the two can meet in opposite order. The edit writes nothing outside the database, so
 * running it again from the start is safe.
 */
export function editTransaction<Result>(db: Database, work: (tx: Transaction) => Promise<Result>): Promise<Result> {
  return transactionRetryingDeadlock(db, work)
}
