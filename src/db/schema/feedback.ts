import { index, jsonb, pgEnum, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
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

/**
 * Provider reports (SES delivery, bounce, complaint...) that named a provider message id no email carried yet:
 * SES can report before the outcome recorder has written the id it returned at send. Each is applied when that
 * id lands (src/modules/feedback/pending-reports.ts) and expires after a day.
 */
export const pendingProviderReports = pgTable(
  'pending_provider_reports',
  {
    id: uuid().primaryKey().defaultRandom(),
    provider: text().$type<'ses'>().notNull(),
    providerMessageId: text().notNull(),
    /** The provider's report as it came (for SES, the notification's `Message` JSON). */
    payload: jsonb().notNull(),
    receivedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index().on(table.providerMessageId), index().on(table.receivedAt)],
)
