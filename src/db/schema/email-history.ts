import { sql } from 'drizzle-orm'
import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { emails } from './emails.js'

/**
 * What happened to one email beyond what its row keeps: every attempt with the transport's answer, deferrals with
 * their next attempt, and every feedback report with its evidence (src/modules/email-history/entries.ts lists the
 * kinds and their details). Append-only, written in the statements that change the email, so it costs the outbox
 * no round trip of its own. The row's own moments (accepted, suppressed at enqueue) are not repeated here.
 */
export const emailHistory = pgTable(
  'email_history',
  {
    /** Insertion order: breaks ties between entries written at one moment (a refusal and its bounce). */
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    // Cascades: a cancelled campaign deletes its queued emails, and a deleted project its emails.
    emailId: uuid()
      .notNull()
      .references(() => emails.id, { onDelete: 'cascade' }),
    projectId: uuid().notNull(),
    at: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    kind: text().notNull(),
    detail: jsonb().$type<Record<string, unknown>>().notNull().default({}),
  },
  (table) => [
    index('email_history_email_index').on(table.emailId, table.at),
    // A project's unsubscribes (rare) for a campaign's unsubscribed recipients, without scanning its emails.
    index('email_history_unsubscribe_index').on(table.projectId).where(sql`${table.kind} = 'unsubscribed'`),
  ],
)
