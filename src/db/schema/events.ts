import { sql } from 'drizzle-orm'
import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { contacts } from './contacts.js'
import { projects } from './foundation.js'

/**
 * The event log: custom events from /v1/track and internal ones (contact.*, later email.* and segment.*).
 * It is also the outbox of the in-app event bus: `dispatched_at` stays null until every subscriber has seen
 * the row, so the partial index holds only the (small) undispatched tail.
 */
export const events = pgTable(
  'events',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    contactId: uuid().references(() => contacts.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    data: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    dispatchedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (table) => [
    index().on(table.projectId, table.name, table.createdAt),
    index().on(table.projectId, table.createdAt),
    // Leads with contact_id (not project_id) so the cascade from a deleted contact can use it too.
    index().on(table.contactId, table.createdAt),
    index('events_undispatched_idx').on(table.createdAt).where(sql`${table.dispatchedAt} IS NULL`),
  ],
)
