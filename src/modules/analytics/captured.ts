import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import type { Granularity } from './period.js'

/*
 * What the capture transport kept instead of sending (MAIL_TRANSPORT=capture), read from its mailbox by the project's
 * indexes: captured mail is never delivered, so analytics counts it apart from `delivered`.
 */

/** Captured emails per UTC bucket of `[from, to)`, keyed by the bucket's time. */
export async function countCapturedByBucket(
  db: Executor,
  projectId: string,
  granularity: Granularity,
  range: { from: Date; to: Date },
): Promise<Map<number, number>> {
  const result = await db.execute<{ bucket: string; captured: number }>(sql`
    SELECT date_trunc(${granularity}, created_at, 'UTC') AS bucket, count(*)::int AS captured
    FROM captured_messages
    WHERE project_id = ${projectId} AND created_at >= ${range.from} AND created_at < ${range.to}
    GROUP BY 1`)
  return new Map(result.rows.map((row) => [new Date(row.bucket).getTime(), row.captured]))
}

/** Captured emails of each of these campaigns. */
export async function countCapturedByCampaign(
  db: Executor,
  projectId: string,
  campaignIds: readonly string[],
): Promise<Map<string, number>> {
  if (campaignIds.length === 0) return new Map()
  const result = await db.execute<{ campaign_id: string; captured: number }>(sql`
    SELECT campaign_id, count(*)::int AS captured FROM captured_messages
    WHERE project_id = ${projectId} AND campaign_id = ANY(${sql.param(campaignIds)}::uuid[])
    GROUP BY 1`)
  return new Map(result.rows.map((row) => [row.campaign_id, row.captured]))
}

/** Captured campaign emails of the project, or of one campaign. */
export async function countCapturedCampaignEmails(
  db: Executor,
  projectId: string,
  campaignId: string | undefined,
): Promise<number> {
  const campaign = campaignId ? sql`campaign_id = ${campaignId}` : sql`campaign_id IS NOT NULL`
  const result = await db.execute<{ captured: number }>(sql`
    SELECT count(*)::int AS captured FROM captured_messages WHERE project_id = ${projectId} AND ${campaign}`)
  return result.rows[0]?.captured ?? 0
}
