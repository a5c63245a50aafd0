import { index, pgEnum, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.js'
import { projects } from './foundation.js'

export const suppressionReason = pgEnum('suppression_reason', ['bounce', 'complaint'])

/**
 * Addresses a project must not mail again: a permanent bounce or a complaint puts the address here
 * (lower-cased), whatever later happens to the contact's subscription.
 */
export const suppressions = pgTable(
  'suppressions',
  {
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    reason: suppressionReason().notNull(),
    /** The email whose feedback caused it; kept as a plain id so deleting old emails keeps the suppression. */
    emailId: uuid(),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.email] }),
    // GET /suppressions, newest first (a backward scan).
    index().on(table.projectId, table.createdAt, table.email),
  ],
)

/**
 * Provider notifications already applied, by the provider's own message id: SNS delivers at least once,
 * so a redelivered notification finds its id here and changes nothing.
 */
export const feedbackReceipts = pgTable(
  'feedback_receipts',
  {
    id: text().primaryKey(),
    receivedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index().on(table.receivedAt)],
)
