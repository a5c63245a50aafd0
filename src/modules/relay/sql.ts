import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { executeNamed } from '../../db/named-statement.js'
import { submittedMessages } from '../../db/schema/index.js'
import { currentPeriodStart, limitColumn } from '../billing/categories.js'
import type { SenderRow } from '../domains/service.js'
import type { SuppressionReason } from '../suppressions/service.js'

/**
 * What MAIL FROM judges, in one statement (it runs for every message): whether the project may send now (disabled
 * by a failed payment, paused by the reputation guard) and its row of the sender's domain, if any.
 */
export type SenderState = {
  disabledReason: string | null
  pausedReason: string | null
  domain: SenderRow | undefined
}

type SenderStateRow = {
  disabled: boolean
  disabled_reason: string | null
  paused: string | null
  domain_id: string | null
  domain: string | null
  status: SenderRow['status'] | null
}

export async function findSenderState(
  db: Executor,
  projectId: string,
  domain: string,
): Promise<SenderState | undefined> {
  const result = await executeNamed<SenderStateRow>(
    db,
    'relay-sender-state',
    sql`
    SELECT p.disabled, p.disabled_reason, p.sending_paused_reason AS paused, d.id AS domain_id, d.domain, d.status
    FROM projects AS p LEFT JOIN domains AS d ON d.project_id = p.id AND d.domain = ${domain}::text
    WHERE p.id = ${projectId}::uuid`,
  )
  const row = result.rows[0]
  if (!row) return undefined
  return {
    disabledReason: row.disabled ? (row.disabled_reason ?? 'disabled') : null,
    pausedReason: row.paused,
    domain:
      row.domain_id !== null && row.domain !== null && row.status !== null
        ? { project_id: projectId, id: row.domain_id, domain: row.domain, status: row.status }
        : undefined,
  }
}

/** What RCPT TO judges, in one statement: the address's suppression, and whether the cap has room for one more. */
export type RecipientState = { suppression: SuppressionReason | undefined; withinCap: boolean }

export async function findRecipientState(db: Executor, projectId: string, address: string): Promise<RecipientState> {
  const cap = sql`b.${limitColumn.transactional}`
  const result = await executeNamed<{ reason: SuppressionReason | null; within_cap: boolean }>(
    db,
    'relay-recipient-state',
    sql`
    SELECT s.reason, ${cap} IS NULL OR (
      SELECT coalesce(sum(u.used), 0) FROM billing_usage AS u
      WHERE u.project_id = b.project_id AND u.period = ${currentPeriodStart} AND u.category = 'transactional'
    ) + 1 <= ${cap} AS within_cap
    FROM (SELECT 1) AS one
    LEFT JOIN suppressions AS s ON s.project_id = ${projectId}::uuid AND s.email = lower(${address}::text)
    LEFT JOIN project_billing AS b ON b.project_id = ${projectId}::uuid`,
  )
  const row = result.rows[0]
  return { suppression: row?.reason ?? undefined, withinCap: row?.within_cap ?? true }
}

/**
 * The emails the latest submission with this Idempotency-Key made, by recipient address (normalized): what a
 * resubmission after a lost 250 answers with.
 */
export async function findEmailsOfKey(db: Executor, projectId: string, key: string): Promise<Map<string, string>> {
  const result = await db.execute<{ id: string; to_email: string }>(sql`
    SELECT e.id, e.to_email FROM emails AS e
    WHERE e.project_id = ${projectId} AND e.submitted_message_id = (
      SELECT m.id FROM submitted_messages AS m WHERE m.project_id = ${projectId} AND m.idempotency_key = ${key}
      ORDER BY m.created_at DESC LIMIT 1)`)
  return new Map(result.rows.map((row) => [row.to_email.trim().toLowerCase(), row.id]))
}

export type NewSubmittedMessage = typeof submittedMessages.$inferInsert

export async function insertSubmittedMessages(db: Executor, messages: readonly NewSubmittedMessage[]): Promise<void> {
  if (messages.length > 0) await db.insert(submittedMessages).values([...messages])
}
