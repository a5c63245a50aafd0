import { and, eq } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { campaigns, segments } from '../../db/schema/index.js'
import { notFound } from '../../errors.js'
import type { CampaignProgress, CampaignView } from './schemas.js'

export type CampaignRow = typeof campaigns.$inferSelect

export type SegmentReference = { id: string; name: string }

/** How far a SENDING campaign has got, from its counters alone (never a count of its emails). */
function progressOf(row: CampaignRow): CampaignProgress {
  const remaining = Math.max(row.totalRecipients - row.sentCount - row.failedCount, 0)
  return {
    queued: row.queuedAt ? remaining : null,
    sent: row.sentCount,
    failed: row.failedCount,
    remaining,
  }
}

/**
 * The API's campaign: every spec field, without the fan-out's bookkeeping (queuedAt, its cursor, failedCount) and
 * the pre-send override (`GET /campaigns/:id/check` shows it).
 */
export function toCampaignView(row: CampaignRow, segment: SegmentReference | null): CampaignView {
  const {
    queuedAt: _queuedAt,
    fanOutCreatedAt: _fanOutCreatedAt,
    fanOutContactId: _fanOutContactId,
    failedCount: _failedCount,
    presendOverride: _presendOverride,
    ...fields
  } = row
  return { ...fields, segment, progress: row.status === 'SENDING' ? progressOf(row) : null }
}

/** Campaigns with the id and name of their segment (null when they have none), for lists and single reads. */
export function selectCampaignsWithSegment(db: Executor) {
  return db
    .select({ campaign: campaigns, segment: { id: segments.id, name: segments.name } })
    .from(campaigns)
    .leftJoin(segments, eq(segments.id, campaigns.segmentId))
}

export async function getCampaign(db: Executor, projectId: string, campaignId: string): Promise<CampaignView> {
  const [row] = await selectCampaignsWithSegment(db).where(
    and(eq(campaigns.id, campaignId), eq(campaigns.projectId, projectId)),
  )
  if (!row) throw notFound('Campaign')
  return toCampaignView(row.campaign, row.segment)
}

/**
 * The campaign row, locked for the rest of the transaction when `lock` is set: state changes (update, delete,
 * send, cancel) take the lock first, so each sees the state the previous one left.
 */
export async function findCampaignRow(
  db: Executor,
  projectId: string,
  campaignId: string,
  options: { lock?: boolean } = {},
): Promise<CampaignRow> {
  const query = db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.id, campaignId), eq(campaigns.projectId, projectId)))
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound('Campaign')
  return row
}
