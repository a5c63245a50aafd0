import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import type { CampaignTimeseries, CampaignTimeseriesQuery } from './schemas.js'
import { findCampaignRow } from './view.js'

type Activity = CampaignTimeseries['data'][number]['activity']

/**
 * `GET /campaigns/:id/timeseries`: the campaign's emails by the hour (or day, UTC) in which each was first sent,
 * delivered, opened, clicked or bounced — the moments stored on its emails, so each email counts once per activity —
 * and in which the capture transport kept it, if it did.
 */
export async function getCampaignTimeseries(
  db: Executor,
  projectId: string,
  campaignId: string,
  query: CampaignTimeseriesQuery,
): Promise<CampaignTimeseries> {
  await findCampaignRow(db, projectId, campaignId)
  const result = await db.execute<{ bucket: Date | string; activity: Activity; count: number }>(sql`
    SELECT date_trunc(${query.granularity}, activity.at, 'UTC') AS bucket, activity.name AS activity,
      count(*)::int AS count
    FROM emails AS e, LATERAL (VALUES ('sent', e.sent_at), ('delivered', e.delivered_at), ('opened', e.opened_at),
      ('clicked', e.clicked_at), ('bounced', e.bounced_at)) AS activity(name, at)
    WHERE e.campaign_id = ${campaignId} AND e.project_id = ${projectId} AND activity.at IS NOT NULL
    GROUP BY 1, 2
    UNION ALL
    SELECT date_trunc(${query.granularity}, created_at, 'UTC'), 'captured', count(*)::int
    FROM captured_messages WHERE project_id = ${projectId} AND campaign_id = ${campaignId}
    GROUP BY 1
    ORDER BY 1, 2`)
  return {
    granularity: query.granularity,
    data: result.rows.map((row) => ({ bucket: new Date(row.bucket), activity: row.activity, count: row.count })),
  }
}
