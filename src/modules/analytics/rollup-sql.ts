import { type SQL, sql } from 'drizzle-orm'

/**
 * The rollup statements, as SQL over a filter on `events` (alias `e`): the subscriber passes the ids of a
 * dispatched batch; migration 0004 ran the same statements once over every event dispatched before it.
 *
 * `unique_count`: an open or click counts as unique unless its payload says it is not the first
 * (`isFirstOpen` / `isFirstClick` false); every other event is unique by nature (one send, one delivery per
 * email). jsonb comparisons instead of casts, so no payload can make the statement fail and stall the bus.
 */
export const uniqueEventSql = sql.raw(`CASE e.name
  WHEN 'email.open' THEN e.data->'isFirstOpen' IS DISTINCT FROM 'false'::jsonb
  WHEN 'email.click' THEN e.data->'isFirstClick' IS DISTINCT FROM 'false'::jsonb
  ELSE true END`)

const campaignIdPattern = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'

export function countEventsHourly(filter: SQL): SQL {
  return sql`
    INSERT INTO event_counts_hourly AS c (project_id, name, hour, count, unique_count)
    SELECT e.project_id, e.name, date_trunc('hour', e.created_at, 'UTC'), count(*), count(*) FILTER (WHERE ${uniqueEventSql})
    FROM events e WHERE ${filter}
    GROUP BY 1, 2, 3
    ON CONFLICT (project_id, name, hour) DO UPDATE
    SET count = c.count + excluded.count, unique_count = c.unique_count + excluded.unique_count`
}

export function countCampaignEvents(filter: SQL): SQL {
  return sql`
    INSERT INTO campaign_event_counts AS c (project_id, campaign_id, name, count, unique_count)
    SELECT e.project_id, (e.data->>'campaignId')::uuid, e.name, count(*), count(*) FILTER (WHERE ${uniqueEventSql})
    FROM events e
    WHERE ${filter} AND e.name LIKE 'email.%' AND e.data->>'campaignId' ~ ${sql.raw(`'${campaignIdPattern}'`)}
    GROUP BY 1, 2, 3
    ON CONFLICT (project_id, campaign_id, name) DO UPDATE
    SET count = c.count + excluded.count, unique_count = c.unique_count + excluded.unique_count`
}
