import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { submittedMessages } from '../../db/schema/index.js'
import type { SuppressionReason } from '../suppressions/service.js'

/** Whether the project may send now: it is disabled (a failed payment) or paused by the reputation guard. */
export type SendingState = { disabledReason: string | null; pausedReason: string | null }

export async function findSendingState(db: Executor, projectId: string): Promise<SendingState | undefined> {
  const result = await db.execute<{ disabled: boolean; disabled_reason: string | null; paused: string | null }>(sql`
    SELECT disabled, disabled_reason, sending_paused_reason AS paused FROM projects WHERE id = ${projectId}`)
  const row = result.rows[0]
  if (!row) return undefined
  return { disabledReason: row.disabled ? (row.disabled_reason ?? 'disabled') : null, pausedReason: row.paused }
}

export async function findSuppression(
  db: Executor,
  projectId: string,
  address: string,
): Promise<SuppressionReason | undefined> {
  const result = await db.execute<{ reason: SuppressionReason }>(sql`
    SELECT reason FROM suppressions WHERE project_id = ${projectId} AND email = ${address.toLowerCase()}`)
  return result.rows[0]?.reason
}

export type NewSubmittedMessage = typeof submittedMessages.$inferInsert

export async function insertSubmittedMessage(db: Executor, message: NewSubmittedMessage): Promise<void> {
  await db.insert(submittedMessages).values(message)
}
