import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { countCapturedCampaignEmails } from '../analytics/captured.js'
import { percentOf } from '../analytics/rates.js'
import type { CampaignStats } from './schemas.js'
import { findCampaignRow } from './view.js'

/**
 * `GET /campaigns/:id/stats`: the counters the emails trigger keeps (migration 0013), read as they are, never
 * counted from the emails; rates are percentages of `sentCount` with two decimals, 0 while nothing is sent.
 * `capturedCount` is what the capture transport kept (captured mail is never delivered).
 */
export async function getCampaignStats(db: Executor, projectId: string, campaignId: string): Promise<CampaignStats> {
  const row = await findCampaignRow(db, projectId, campaignId)
  const sent = row.sentCount
  return {
    success: true,
    data: {
      totalRecipients: row.totalRecipients,
      sentCount: sent,
      capturedCount: await countCapturedCampaignEmails(db, projectId, campaignId),
      deliveredCount: row.deliveredCount,
      openedCount: row.openedCount,
      clickedCount: row.clickedCount,
      bouncedCount: row.bouncedCount,
      complainedCount: row.complainedCount,
      unsubscribedCount: row.unsubscribedCount,
      openRate: percentOf(row.openedCount, sent),
      clickRate: percentOf(row.clickedCount, sent),
      bounceRate: percentOf(row.bouncedCount, sent),
      deliveryRate: percentOf(row.deliveredCount, sent),
      complaintRate: percentOf(row.complainedCount, sent),
      unsubscribeRate: percentOf(row.unsubscribedCount, sent),
    },
  }
}

/**
 * One more unsubscribe through the campaign's email (the subscription link names it). Not through the query
 * builder, which would move `updatedAt`: that says when the campaign was edited. A deleted campaign counts nothing.
 */
export async function countCampaignUnsubscribe(db: Executor, projectId: string, campaignId: string): Promise<void> {
  await db.execute(sql`
    UPDATE campaigns SET unsubscribed_count = unsubscribed_count + 1
    WHERE id = ${campaignId} AND project_id = ${projectId}`)
}
