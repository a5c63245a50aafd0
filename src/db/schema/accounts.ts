import { sql } from 'drizzle-orm'
import { index, pgEnum, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.js'
import { emails } from './emails.js'
import { memberRole, projects, users } from './foundation.js'

const at = () => timestamp({ withTimezone: true, mode: 'date' })

/**
 * A dashboard login. The cookie carries a signed token naming this row; every request checks the row still
 * exists, so logout, a password reset or a removal from a team ends a session at once (DESIGN.md §1).
 */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: at().notNull(),
  },
  (table) => [index().on(table.userId), index().on(table.expiresAt)],
)

export const accountTokenPurpose = pgEnum('account_token_purpose', ['VERIFY_EMAIL', 'RESET_PASSWORD'])

/**
 * A one-time token mailed to a user (email verification, password reset). Only its SHA-256 is stored, so a
 * leaked table grants nothing; `usedAt` makes it single-use, and the rows of the last hour are the per-address
 * request count.
 */
export const accountTokens = pgTable(
  'account_tokens',
  {
    id: uuid().primaryKey().defaultRandom(),
    tokenHash: text().notNull().unique(),
    purpose: accountTokenPurpose().notNull(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The address the token was mailed to: a verification token proves this address, not a later one. */
    email: text().notNull(),
    createdAt: createdAt(),
    expiresAt: at().notNull(),
    usedAt: at(),
  },
  (table) => [index().on(table.userId, table.purpose, table.createdAt)],
)

/** A pending invitation of an address without an account (or not yet accepted) into a project. */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    role: memberRole().notNull(),
    invitedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: at().notNull(),
    acceptedAt: at(),
  },
  (table) => [index().on(table.projectId, table.email)],
)

/** A sign-in identity at an OAuth provider, linked to one user. */
export const oauthAccounts = pgTable(
  'oauth_accounts',
  {
    provider: text().notNull(),
    providerAccountId: text().notNull(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.provider, table.providerAccountId] }), index().on(table.userId)],
)

export const accountEmailKind = pgEnum('account_email_kind', [
  'VERIFY_EMAIL',
  'RESET_PASSWORD',
  'INVITATION',
  // To a project's owners: one of its webhook endpoints was disabled after failing for days.
  'WEBHOOK_DISABLED',
])

/**
 * Whom each of Mailroom's own emails concerns. They all go out through the system project's outbox, whose mailbox
 * nobody sees; with the capture transport this is how the dashboard shows a verification or reset email to its
 * user and an invitation to the admins of the project it invites to, and to no one else.
 */
export const accountEmails = pgTable(
  'account_emails',
  {
    emailId: uuid()
      .primaryKey()
      .references(() => emails.id, { onDelete: 'cascade' }),
    kind: accountEmailKind().notNull(),
    userId: uuid().references(() => users.id, { onDelete: 'cascade' }),
    projectId: uuid().references(() => projects.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (table) => [
    index().on(table.userId).where(sql`${table.userId} IS NOT NULL`),
    index().on(table.projectId).where(sql`${table.projectId} IS NOT NULL`),
  ],
)
