import { eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Transaction } from '../../db/client.js'
import { campaigns } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { type CampaignRecord, lockCampaign } from './send.js'

/**
 * Cancels a SCHEDULED or SENDING campaign (DESIGN.md §4). A scheduled one goes back to DRAFT. A sending one
 * loses every email still queued, in this transaction (the outbox also drops any it has claimed but not yet
 * handed to the transport: see personalise.ts); it becomes CANCELLED, or DRAFT again when none of its mail was
 * sent or is being sent. Emails already handed over still count, so the numbers match what went out.
 */
export async function cancelCampaign(ctx: AppContext, projectId: string, id: string): Promise<CampaignRecord> {
  return ctx.db.transaction(async (tx) => {
    const campaign = await lockCampaign(tx, projectId, id)
    if (campaign.status === 'SCHEDULED') {
      return update(tx, id, { status: 'DRAFT', scheduledFor: null, totalRecipients: 0 })
    }
    if (campaign.status !== 'SENDING') {
      throw new AppError('BAD_REQUEST', 'Can only cancel scheduled or sending campaigns')
    }
    // An email locked right now is being claimed or recorded by the outbox, which then needs this campaign's row
    // (its counters) that this transaction holds: waiting for it would deadlock. Skipped, it is sent or dropped by
    // the outbox (a cancelled campaign's claimed mail stops before the transport) and counted either way. The rows
    // are deleted by ctid, which their lock keeps fixed: by id, 1M rows took 7.6 s instead of 4.6.
    const dropped = await tx.execute(sql`
      DELETE FROM emails WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM emails WHERE campaign_id = ${id} AND status = 'QUEUED' FOR UPDATE SKIP LOCKED))`)
    // The project's campaign pace restarts from its remaining queued campaign mail, not from this one's end.
    await tx.execute(sql`
      UPDATE projects SET campaign_slot_at = (
        SELECT max(next_attempt_at) FROM emails
        WHERE project_id = ${projectId} AND status = 'QUEUED' AND source_type = 'CAMPAIGN')
      WHERE id = ${projectId}`)
    // A queued email left after the delete is one the outbox holds: it may still reach the transport, so it
    // counts as handed over, and the DRAFT path below never has to wait for its lock.
    const handed = await tx.execute<{ count: number }>(sql`
      SELECT count(*)::int AS count FROM emails
      WHERE campaign_id = ${id} AND (sent_at IS NOT NULL OR status IN ('QUEUED', 'SENDING'))`)
    if ((handed.rows[0]?.count ?? 0) === 0) {
      await tx.execute(sql`DELETE FROM emails WHERE campaign_id = ${id}`)
      return update(tx, id, {
        status: 'DRAFT',
        scheduledFor: null,
        sentAt: null,
        queuedAt: null,
        fanOutCreatedAt: null,
        fanOutContactId: null,
        totalRecipients: 0,
        failedCount: 0,
      })
    }
    return update(tx, id, {
      status: 'CANCELLED',
      queuedAt: campaign.queuedAt ?? new Date(),
      totalRecipients: campaign.totalRecipients - (dropped.rowCount ?? 0),
    })
  })
}

async function update(
  tx: Transaction,
  id: string,
  values: Partial<typeof campaigns.$inferInsert>,
): Promise<CampaignRecord> {
  const [updated] = await tx.update(campaigns).set(values).where(eq(campaigns.id, id)).returning()
  if (!updated) throw new Error('a locked campaign disappeared')
  return updated
}
