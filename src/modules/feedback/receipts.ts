import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { feedbackReceipts } from '../../db/schema/index.js'

/**
 * How long a notification id is remembered. Providers stop redelivering long before (SNS gives up on an HTTP(S)
 * notification within an hour). A notification older than this could apply twice once its receipt is gone, so
 * the provider webhook refuses SNS messages published longer ago: both read this one constant.
 */
export const feedbackReceiptRetentionMs = 7 * 24 * 3_600_000

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

/** Receipts older than the retention only take space: messages that old are refused before any lookup. */
export async function deleteFeedbackReceiptsBefore(db: Executor, before: Date): Promise<number> {
  const result = await db.execute(sql`DELETE FROM feedback_receipts WHERE received_at < ${before.toISOString()}`)
  return result.rowCount ?? 0
}
