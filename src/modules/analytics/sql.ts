import { type SQL, sql } from 'drizzle-orm'

/** The event names analytics reads, and how each becomes a metric (unique or total). */
export const metricSources = {
  sent: ['email.sent', 'count'],
  delivered: ['email.delivery', 'count'],
  opened: ['email.open', 'unique_count'],
  clicked: ['email.click', 'unique_count'],
  bounced: ['email.bounce', 'count'],
  complained: ['email.complaint', 'count'],
  opens: ['email.open', 'count'],
  clicks: ['email.click', 'count'],
  machineOpens: ['email.machine_open', 'count'],
  machineClicks: ['email.machine_click', 'count'],
} as const
export type MetricName = keyof typeof metricSources

export const metricEventNames = [...new Set(Object.values(metricSources).map(([name]) => name))]

/** `sum(...) FILTER (...) AS "metric"` for every metric, over a rollup table's `name`, `count`, `unique_count`. */
export function metricColumns(): SQL {
  return sql.raw(
    Object.entries(metricSources)
      .map(([metric, [name, column]]) => `coalesce(sum(${column}) FILTER (WHERE name = '${name}'), 0) AS "${metric}"`)
      .join(',\n  '),
  )
}

export type MetricRow = Record<MetricName, string>

/**
 * SQL twin of activity's `isInternalEventName` (and of events/names.ts) for a `name` column. /v1/track refuses every reserved name
 * (case-insensitively), so whatever is not internal here is a custom event.
 */
export function internalEventNameSql(column: SQL): SQL {
  return sql`(${column} LIKE 'email.%' OR ${column} IN ('contact.subscribed', 'contact.unsubscribed') OR ${column} ~ '^segment\\.[^.]+\\.(entry|exit)$' OR ${column} LIKE 'workflow.%' OR ${column} LIKE 'webhook.%')`
}
