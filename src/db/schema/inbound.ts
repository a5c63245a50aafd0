import { pgTable, text, unique, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.js'
import { projects } from './foundation.js'

export const inboundSource = ['smtp', 'ses'] as const

/**
 * One row per message received for a project. The message itself is the `email.received` event; this row
 * makes a redelivery (an SMTP client retrying after a lost reply, SNS delivering twice) a no-op: the unique
 * key is the message's id in its source, so each project gets one event per message.
 */
export const inboundEmails = pgTable(
  'inbound_emails',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    source: text({ enum: inboundSource }).notNull(),
    /** SMTP: the Message-ID header without brackets; SES: `mail.messageId`. */
    messageId: text().notNull(),
    receivedAt: createdAt(),
  },
  (table) => [unique().on(table.projectId, table.source, table.messageId)],
)
