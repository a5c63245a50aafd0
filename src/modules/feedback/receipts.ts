import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { feedbackReceipts } from '../../db/schema/index.js'

/**
 * Records a provider notification id; false when it was recorded before. Call it in the transaction that
 * applies the notification, so a failure rolls both back and the provider's retry is applied then.
 */
export async function claimFeedbackReceipt(db: Executor, id: string): Promise<boolean> {
  const rows = await db
    .insert(feedbackReceipts)
    .values({ id })
    .onConflictDoNothing()
    .returning({ id: feedbackReceipts.id })
  return rows.length > 0
}

/** Providers stop redelivering within days; older receipts only take space. */
export async function deleteFeedbackReceiptsBefore(db: Executor, before: Date): Promise<number> {
  const result = await db.execute(sql`DELETE FROM feedback_receipts WHERE received_at < ${before.toISOString()}`)
  return result.rowCount ?? 0
}
