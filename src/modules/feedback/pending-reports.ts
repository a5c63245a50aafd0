import { sql } from 'drizzle-orm'
import type { Database, Executor, Transaction } from '../../db/client.js'
import { pendingProviderReports } from '../../db/schema/index.js'
import type { Logger } from '../../logger.js'
import { parseSesNotification } from '../../mail/aws/ses-notifications.js'
import { applySesReport, isActionable } from './provider-reports.js'

/**
 * SES answers a send with its message id, and the outcome recorder writes that id some milliseconds later
 * (batched, src/modules/delivery/recorder.ts); a fast Delivery or Bounce report can arrive in between. Such a
 * report is kept here and applied when the id lands, through the same `applySesReport` as a report that matched.
 */
export async function holdProviderReport(
  tx: Transaction,
  report: { provider: 'ses'; providerMessageId: string; payload: unknown },
): Promise<void> {
  await tx.insert(pendingProviderReports).values(report)
}

type PendingRow = { provider_message_id: string; payload: unknown; received_at: string }

/**
 * Applies, in the caller's transaction, the held reports naming any of `providerMessageIds`, oldest first, and
 * removes them: one statement whatever the number of ids, so the recorder can call it for every batch. The
 * DELETE … RETURNING hands each report to exactly one transaction, however many race for it.
 */
export async function applyPendingProviderReports(
  tx: Transaction,
  providerMessageIds: readonly (string | null)[],
): Promise<number> {
  const ids = providerMessageIds.filter((id): id is string => id !== null)
  if (ids.length === 0) return 0
  const result = await tx.execute<PendingRow>(sql`
    DELETE FROM pending_provider_reports WHERE provider_message_id = ANY(${sql.param(ids)}::text[])
    RETURNING provider_message_id, payload, received_at`)
  return applyRows(tx, result.rows)
}

async function applyRows(tx: Transaction, rows: PendingRow[]): Promise<number> {
  let applied = 0
  const oldestFirst = rows.sort((a, b) => new Date(a.received_at).getTime() - new Date(b.received_at).getTime())
  for (const row of oldestFirst) {
    const feedback = parseSesNotification(row.payload)
    // Only actionable reports are held, so this is always true; a payload read differently by a newer version
    // is dropped rather than kept forever.
    if (isActionable(feedback) && (await applySesReport(tx, feedback))) applied += 1
  }
  return applied
}

/**
 * The safety net for the one race the recorder's own call cannot see: a report committed while the recorder's
 * transaction was open (after its DELETE, before its commit) found no email and was held. Applies held reports
 * whose email now has the id, in batches, each in its own transaction.
 */
export async function applyMatchedPendingReports(db: Database, batchSize = 500): Promise<number> {
  let total = 0
  for (;;) {
    const applied = await db.transaction(async (tx) => {
      const result = await tx.execute<PendingRow>(sql`
        DELETE FROM pending_provider_reports WHERE id IN (
          SELECT p.id FROM pending_provider_reports p
          WHERE EXISTS (SELECT 1 FROM emails e WHERE e.provider_message_id = p.provider_message_id)
          ORDER BY p.received_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)
        RETURNING provider_message_id, payload, received_at`)
      return { rows: result.rows.length, applied: await applyRows(tx, result.rows) }
    })
    total += applied.applied
    if (applied.rows < batchSize) return total
  }
}

/** Held reports whose id never landed: for emails of another sender on the same SES topic, or resent under a new id. */
export async function deletePendingReportsBefore(db: Executor, before: Date, log: Logger): Promise<number> {
  const result = await db.execute(sql`DELETE FROM pending_provider_reports WHERE received_at < ${before.toISOString()}`)
  const deleted = result.rowCount ?? 0
  if (deleted > 0) log.info({ deleted }, 'provider reports for unknown emails expired')
  return deleted
}
