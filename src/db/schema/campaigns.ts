import { sql } from 'drizzle-orm'
import { index, integer, jsonb, pgEnum, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import type { ConditionTree } from '../../conditions/tree.js'
import { createdAt, updatedAt } from './columns.js'
import { projects } from './foundation.js'
import { segments } from './segments.js'
import { templateType } from './templates.js'

/**
 * An owner's decision to send a campaign despite its pre-send errors (migration 0029): who (null for the secret
 * key), when, and the error codes accepted. A later edit of the scheduled campaign may not add other errors.
 */
export type PresendOverride = { userId: string | null; at: string; codes: string[] }

const moment = () => timestamp({ withTimezone: true, mode: 'date' })
const counter = () => integer().notNull().default(0)

export const campaignStatus = pgEnum('campaign_status', ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'])
export const audienceType = pgEnum('audience_type', ['ALL', 'SEGMENT', 'FILTERED'])

/**
 * A campaign and its running totals. The counters are kept by a statement-level trigger on `emails` (migration
 * 0013): one update per statement that settles or reports on a batch of its emails, never one per email.
 */
export const campaigns = pgTable(
  'campaigns',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    subject: text().notNull(),
    body: text().notNull(),
    from: text().notNull(),
    fromName: text(),
    replyTo: text(),
    type: templateType().notNull().default('MARKETING'),
    status: campaignStatus().notNull().default('DRAFT'),
    audienceType: audienceType().notNull(),
    audienceCondition: jsonb().$type<ConditionTree>(),
    // Kept after the segment is deleted (a sent campaign's record); the API refuses to delete one in use.
    segmentId: uuid().references(() => segments.id, { onDelete: 'set null' }),
    scheduledFor: moment(),
    sentAt: moment(),
    /** Set when every recipient's email is in the outbox; until then the fan-out may still be adding some. */
    queuedAt: moment(),
    /**
     * The last contact the fan-out queued: it walks the audience in (created_at, id) order, the contacts index,
     * one chunk per transaction, so a crash resumes after the last committed chunk.
     */
    fanOutCreatedAt: moment(),
    fanOutContactId: uuid(),
    totalRecipients: counter(),
    sentCount: counter(),
    deliveredCount: counter(),
    openedCount: counter(),
    clickedCount: counter(),
    bouncedCount: counter(),
    complainedCount: counter(),
    unsubscribedCount: counter(),
    failedCount: counter(),
    /** Set when the last send or schedule went ahead despite pre-send errors; null when it passed the check. */
    presendOverride: jsonb().$type<PresendOverride>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index().on(table.projectId, table.createdAt),
    index('campaigns_due_index').on(table.scheduledFor).where(sql`${table.status} = 'SCHEDULED'`),
    index('campaigns_fan_out_index')
      .on(table.sentAt)
      .where(sql`${table.status} = 'SENDING' AND ${table.queuedAt} IS NULL`),
    index('campaigns_segment_index').on(table.segmentId).where(sql`${table.segmentId} IS NOT NULL`),
  ],
)
