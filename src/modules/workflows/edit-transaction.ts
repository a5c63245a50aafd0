import type { Database, Transaction } from '../../db/client.js'

const maxAttempts = 3

function isDeadlock(err: unknown): boolean {
  const cause = err instanceof Error && 'cause' in err ? err.cause : err
  return typeof cause === 'object' && cause !== null && 'code' in cause && cause.code === '40P01'
}

/**
 * One transaction of a workflow edit, run again when PostgreSQL breaks a deadlock by aborting it. An edit locks the
 * workflow row and then a step; the engine, saving an execution, holds its steps' keys and then updates the
 * workflow's counters: the two can meet in opposite order. The edit writes nothing outside the database, so
 * running it again from the start is safe.
 */
export async function editTransaction<Result>(
  db: Database,
  work: (tx: Transaction) => Promise<Result>,
): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work)
    } catch (err) {
      if (attempt >= maxAttempts || !isDeadlock(err)) throw err
    }
  }
}
