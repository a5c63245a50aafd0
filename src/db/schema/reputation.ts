import { sql } from 'drizzle-orm'
import {
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt } from './columns.js'
import { projects, users } from './foundation.js'

/**
 * Hourly rollup of what the reputation guard counts, kept by an event-bus subscriber (exactly once per
 * event, in the dispatcher's transaction). Rates over 24 h, 7 days and all time sum at most a few thousand
 * small rows instead of counting a big project's events.
 */
export const reputationCounts = pgTable(
  'reputation_counts',
  {
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** Start of the hour (UTC) of the events' `created_at`. */
    hour: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    sent: integer().notNull().default(0),
    /** `Permanent` bounces only: transient ones do not count toward the bounce rate (spec, bounce rules). */
    bounces: integer().notNull().default(0),
    complaints: integer().notNull().default(0),
    /**
     * The marketing stream's share of the three counts above (the transactional stream is the rest). Rows written
     * before 0030 have none: their mail counts as transactional.
     */
    marketingSent: integer().notNull().default(0),
    marketingBounces: integer().notNull().default(0),
    marketingComplaints: integer().notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.hour] })],
)

/**
 * Times the guard paused a project's sending: its marketing stream (`scope` MARKETING, mirrored on
 * `projects.marketing_paused_reason`) or all of it (`scope` PROJECT, mirrored on `projects.sending_paused_reason`),
 * so the per-request check costs nothing. At most one open row (`lifted_at` null) per project and scope.
 */
export const projectSuspensions = pgTable(
  'project_suspensions',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** `MARKETING` (that stream only) or `PROJECT` (everything); rows before 0030 are all `PROJECT`. */
    scope: text().notNull().default('PROJECT'),
    /** `BOUNCE_RATE` or `COMPLAINT_RATE`: the first threshold crossed. */
    reason: text().notNull(),
    message: text().notNull(),
    /** The guard window's numbers (of the paused scope's stream) when it paused. Rates in percent. */
    sent: integer().notNull(),
    bounces: integer().notNull(),
    complaints: integer().notNull(),
    bounceRate: doublePrecision().notNull(),
    complaintRate: doublePrecision().notNull(),
    createdAt: createdAt(),
    liftedAt: timestamp({ withTimezone: true, mode: 'date' }),
    liftedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    /**
     * The rollup row of the lift's hour as it stood at the lift: the guard subtracts it so only events after
     * the lift count toward pausing again.
     */
    baselineSent: integer().notNull().default(0),
    baselineBounces: integer().notNull().default(0),
    baselineComplaints: integer().notNull().default(0),
    baselineMarketingSent: integer().notNull().default(0),
    baselineMarketingBounces: integer().notNull().default(0),
    baselineMarketingComplaints: integer().notNull().default(0),
  },
  (table) => [
    index().on(table.projectId, table.createdAt),
    uniqueIndex('project_suspensions_open_idx').on(table.projectId, table.scope).where(sql`${table.liftedAt} IS NULL`),
  ],
)
