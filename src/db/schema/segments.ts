import { sql } from 'drizzle-orm'
import { boolean, index, integer, jsonb, pgEnum, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import type { ConditionTree } from '../../conditions/tree.js'
import { createdAt, updatedAt } from './columns.js'
import { contacts } from './contacts.js'
import { projects } from './foundation.js'

export const segmentType = pgEnum('segment_type', ['DYNAMIC', 'STATIC'])

/** A named audience: a condition over contacts (DYNAMIC) or a list of members (STATIC). */
export const segments = pgTable(
  'segments',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    type: segmentType().notNull().default('DYNAMIC'),
    condition: jsonb().$type<ConditionTree>(),
    trackMembership: boolean().notNull().default(false),
    /** Cached; refreshed on write, by `/refresh` and `/compute`, and by the background job. */
    memberCount: integer().notNull().default(0),
    memberCountAt: timestamp({ withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index().on(table.projectId, table.createdAt)],
)

/**
 * A contact's membership of a segment: the member list of a STATIC segment, and the last computed membership
 * of a tracked DYNAMIC one (what entry and exit events are diffed against). A row with `exited_at` is a past
 * member; entering again clears it and moves `entered_at`.
 */
export const segmentMemberships = pgTable(
  'segment_memberships',
  {
    segmentId: uuid()
      .notNull()
      .references(() => segments.id, { onDelete: 'cascade' }),
    contactId: uuid()
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    enteredAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    exitedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (table) => [
    primaryKey({ columns: [table.segmentId, table.contactId] }),
    // A contact's memberships (single-contact re-evaluation, and the cascade from a deleted contact).
    index().on(table.contactId),
    // Active members in entry order (static member lists).
    index('segment_memberships_active_index')
      .on(table.segmentId, table.enteredAt)
      .where(sql`${table.exitedAt} IS NULL`),
  ],
)
