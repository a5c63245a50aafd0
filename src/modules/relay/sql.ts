import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { executeNamed } from '../../db/named-statement.js'
import type { submittedMessages } from '../../db/schema/index.js'
import { currentPeriodStart, limitColumn } from '../billing/categories.js'
import type { SenderRow } from '../domains/service.js'
import type { SuppressionReason } from '../suppressions/service.js'

/**
 * What MAIL FROM judges: whether the project may send now (disabled by a failed payment, paused by the reputation
 * guard) and its row of the sender's domain, if any; undefined when the project is gone.
 */
export type SenderState = {
  disabledReason: string | null
  pausedReason: string | null
  domain: SenderRow | undefined
}

export type SenderKey = { projectId: string; domain: string }

type SenderStateRow = {
  ord: number
  project_id: string | null
  disabled: boolean | null
  disabled_reason: string | null
  paused: string | null
  domain_id: string | null
  domain: string | null
  status: SenderRow['status'] | null
}

/**
 * The sender states of many MAIL FROM commands (of every connection) in one named statement, in key order: it
 * runs for every message, and its parsing and planning would cost more than running it. The keys come as a JSON
 * recordset rather than arrays: the planner estimates a recordset's rows alike with or without their values, so
 * after its first runs it keeps one generic plan; over unnest it would plan every call anew.
 */
export async function findSenderStates(db: Executor, keys: readonly SenderKey[]): Promise<(SenderState | undefined)[]> {
  const input = keys.map((key, ord) => ({ ord, project_id: key.projectId, domain: key.domain }))
  const result = await executeNamed<SenderStateRow>(
    db,
    'relay-sender-states',
    sql`
    SELECT k.ord, p.id AS project_id, p.disabled, p.disabled_reason, p.sending_paused_reason AS paused,
      d.id AS domain_id, d.domain, d.status
    FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS k(ord int, project_id uuid, domain text)
    LEFT JOIN projects AS p ON p.id = k.project_id
    LEFT JOIN domains AS d ON d.project_id = k.project_id AND d.domain = k.domain`,
  )
  const states: (SenderState | undefined)[] = keys.map(() => undefined)
  for (const row of result.rows) {
    if (row.project_id === null) continue
    states[row.ord] = {
      disabledReason: row.disabled ? (row.disabled_reason ?? 'disabled') : null,
      pausedReason: row.paused,
      domain:
        row.domain_id !== null && row.domain !== null && row.status !== null
          ? { project_id: row.project_id, id: row.domain_id, domain: row.domain, status: row.status }
          : undefined,
    }
  }
  return states
}

/** What RCPT TO judges: the address's suppression, and whether the cap has room for one more. */
export type RecipientState = { suppression: SuppressionReason | undefined; withinCap: boolean }

export type RecipientKey = { projectId: string; address: string }

/** The recipient states of many RCPT TO commands in one named statement, in key order (see findSenderStates). */
export async function findRecipientStates(db: Executor, keys: readonly RecipientKey[]): Promise<RecipientState[]> {
  const cap = sql`b.${limitColumn.transactional}`
  const input = keys.map((key, ord) => ({ ord, project_id: key.projectId, address: key.address }))
  const result = await executeNamed<{ ord: number; reason: SuppressionReason | null; within_cap: boolean | null }>(
    db,
    'relay-recipient-states',
    sql`
    SELECT k.ord, s.reason, ${cap} IS NULL OR (
      SELECT coalesce(sum(u.used), 0) FROM billing_usage AS u
      WHERE u.project_id = b.project_id AND u.period = ${currentPeriodStart} AND u.category = 'transactional'
    ) + 1 <= ${cap} AS within_cap
    FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS k(ord int, project_id uuid, address text)
    LEFT JOIN suppressions AS s ON s.project_id = k.project_id AND s.email = lower(k.address)
    LEFT JOIN project_billing AS b ON b.project_id = k.project_id`,
  )
  const states: RecipientState[] = keys.map(() => ({ suppression: undefined, withinCap: true }))
  for (const row of result.rows) {
    states[row.ord] = { suppression: row.reason ?? undefined, withinCap: row.within_cap ?? true }
  }
  return states
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

export type NewSubmittedMessage = Pick<
  typeof submittedMessages.$inferInsert,
  'id' | 'projectId' | 'mailFrom' | 'raw' | 'idempotencyKey'
>

/** The messages of a group commit, in one statement; the raw message travels as a binary parameter. */
export async function insertSubmittedMessages(db: Executor, messages: readonly NewSubmittedMessage[]): Promise<void> {
  if (messages.length === 0) return
  const rows = messages.map(
    (message) =>
      sql`(${message.id}::uuid, ${message.projectId}::uuid, ${message.mailFrom}::text, ${message.raw}::bytea, ${message.idempotencyKey ?? null}::text)`,
  )
  await db.execute(sql`
    INSERT INTO submitted_messages (id, project_id, mail_from, raw, idempotency_key) VALUES ${sql.join(rows, sql`, `)}`)
}
