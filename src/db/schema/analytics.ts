import { bigint, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { projects } from './foundation.js'

const projectReference = () =>
  uuid()
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' })
const counter = () => bigint({ mode: 'number' }).notNull().default(0)

/**
 * Events per (project, name, hour), kept by an event-bus subscriber inside the dispatch transaction, so
 * each event is counted exactly once. `unique_count` counts first opens and first clicks for
 * email.open / email.click (the spec's `isFirstOpen` / `isFirstClick`) and every event of other names.
 */
export const eventCountsHourly = pgTable(
  'event_counts_hourly',
  {
    projectId: projectReference(),
    name: text().notNull(),
    hour: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    count: counter(),
    uniqueCount: counter(),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.name, table.hour] }),
    // Time-range scans over every name (timeseries, stats) without visiting each name's run of the key.
    index().on(table.projectId, table.hour),
  ],
)

/** Email events per (project, campaign, name), from the `campaignId` of the event; same counting rules. */
export const campaignEventCounts = pgTable(
  'campaign_event_counts',
  {
    projectId: projectReference(),
    campaignId: uuid().notNull(),
    name: text().notNull(),
    count: counter(),
    uniqueCount: counter(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.campaignId, table.name] })],
)
