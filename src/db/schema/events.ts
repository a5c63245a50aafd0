import { sql } from 'drizzle-orm'
import { customType, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { contacts } from './contacts.js'
import { projects } from './foundation.js'

/** A 64-bit transaction id (PostgreSQL 13+), as text: it can pass 2^53. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' })

/**
 * The event log: custom events from /v1/track and internal ones (contact.*, later email.* and segment.*).
 * It is also the outbox of the in-app event bus. Rows are never updated: `tx_id` (the inserting transaction)
 * orders them for the dispatcher, whose position lives in `event_bus_positions` (docs/decisions/0003).
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
    txId: xid8().notNull().default(sql`pg_current_xact_id()`),
  },
  (table) => [
    index().on(table.projectId, table.name, table.createdAt),
    index().on(table.projectId, table.createdAt),
    // Leads with contact_id (not project_id) so the cascade from a deleted contact can use it too.
    index().on(table.contactId, table.createdAt),
    // The bus reads in this order; new rows land at the right edge, as transaction ids only grow.
    index().on(table.txId, table.id),
  ],
)

/**
 * How far a consumer of the event bus has read, as the (tx_id, id) of the last event it handled. Events of
 * transaction 0 predate the position (already dispatched when the bus moved to positions).
 */
export const eventBusPositions = pgTable('event_bus_positions', {
  consumer: text().primaryKey(),
  txId: xid8().notNull(),
  eventId: uuid().notNull(),
})
