import { type SQL, sql } from 'drizzle-orm'

/**
 * `unique_count`: an open or click counts as unique unless its payload says it is not the first
 * (`isFirstOpen` / `isFirstClick` false); every other event is unique by nature (one send, one delivery per
 * email). jsonb comparisons instead of casts, so no payload can make a statement fail and stall the bus.
 */
export const uniqueEventSql = sql.raw(`CASE e.name
  WHEN 'email.open' THEN e.data->'isFirstOpen' IS DISTINCT FROM 'false'::jsonb
  WHEN 'email.click' THEN e.data->'isFirstClick' IS DISTINCT FROM 'false'::jsonb
  ELSE true END`)

const campaignIdPattern = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'

/**
 * Adds the events matching `filter` (SQL on `events e`) to both rollups in one statement: the subscriber
 * passes the ids of a dispatched batch; migration 0008 ran the same over every event dispatched before it.
 * Rows are upserted in key order, so two dispatchers (two worker processes) updating the same counters wait
 * for each other instead of deadlocking.
 */
export function countEvents(filter: SQL): SQL {
  return sql`
    WITH batch AS (
      SELECT e.project_id, e.name, date_trunc('hour', e.created_at, 'UTC') AS hour, ${uniqueEventSql} AS is_unique,
        CASE WHEN e.name LIKE 'email.%' AND e.data->>'campaignId' ~ ${sql.raw(`'${campaignIdPattern}'`)}
          THEN (e.data->>'campaignId')::uuid END AS campaign_id
      FROM events e WHERE ${filter}
    ), hourly AS (
      INSERT INTO event_counts_hourly AS c (project_id, name, hour, count, unique_count)
      SELECT project_id, name, hour, count(*), count(*) FILTER (WHERE is_unique)
      FROM batch GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (project_id, name, hour) DO UPDATE
      SET count = c.count + excluded.count, unique_count = c.unique_count + excluded.unique_count
    )
    INSERT INTO campaign_event_counts AS c (project_id, campaign_id, name, count, unique_count)
    SELECT project_id, campaign_id, name, count(*), count(*) FILTER (WHERE is_unique)
    FROM batch WHERE campaign_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (project_id, campaign_id, name) DO UPDATE
    SET count = c.count + excluded.count, unique_count = c.unique_count + excluded.unique_count`
}
