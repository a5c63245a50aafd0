import type { Database, Transaction } from './client.js'

const maxAttempts = 3

function isDeadlock(err: unknown): boolean {
  const cause = err instanceof Error && 'cause' in err ? err.cause : err
  return typeof cause === 'object' && cause !== null && 'code' in cause && cause.code === '40P01'
}

/**
 * A transaction run again (at most three times in all) when PostgreSQL breaks a deadlock by aborting it. For work
 * that must lock rows in an order other writers do not share, and writes nothing outside the database that a
 * second run would repeat wrongly.
 */
export async function transactionRetryingDeadlock<Result>(
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
