import { sql } from 'drizzle-orm'
import {
  boolean,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt, updatedAt } from './columns.js'

export const users = pgTable('users', {
  id: uuid().primaryKey().defaultRandom(),
  email: text().notNull().unique(),
  /** Null for an account made through OAuth sign-in, which has no password until one is set by a reset. */
  passwordHash: text(),
  emailVerified: boolean().notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
})

/**
 * Open and click tracking of a project's mail, as Plunk names it. `MARKETING_ONLY` (the default here; Plunk
 * defaults to `ENABLED`) leaves transactional mail untouched: receipts and password resets are read, not
 * measured, and rewritten links in them look less trustworthy.
 */
export const trackingMode = pgEnum('tracking_mode', ['ENABLED', 'DISABLED', 'MARKETING_ONLY'])

export const projects = pgTable(
  'projects',
  {
    id: uuid().primaryKey().defaultRandom(),
    name: text().notNull(),
    /**
     * API keys (docs/decisions/0019): the HMAC of each finds the project a request's key belongs to; the sealed
     * key is shown to the project's members. Null only in rows written before 0020, until the next start seals
     * their plaintext (modules/projects/seal-plaintext-keys.ts).
     */
    publicKeyHash: text().unique(),
    secretKeyHash: text().unique(),
    publicKeySealed: text(),
    secretKeySealed: text(),
    /** The plaintext keys of rows written before 0020; sealed and cleared at start, so null everywhere after. */
    publicKey: text(),
    secretKey: text(),
    disabled: boolean().notNull().default(false),
    disabledReason: text(),
    tracking: trackingMode().notNull().default('MARKETING_ONLY'),
    /**
     * Set while the reputation guard holds all of the project's sending (its transactional stream reached the hard
     * ceiling; see `project_suspensions`); null when active.
     */
    sendingPausedReason: text(),
    /** Set while the reputation guard holds the project's marketing stream only (campaigns, MARKETING templates). */
    marketingPausedReason: text(),
    /**
     * When the project's campaign mail may next go out: each fan-out chunk gives its emails send times from here
     * on at the configured rate and moves it, so every campaign of the project shares one rate across workers.
     */
    campaignSlotAt: timestamp({ withTimezone: true, mode: 'date' }),
    /**
     * Mailroom's own project for account mail (verification, password reset, invitations): no member, and keys
     * that cannot pass the key format check, so no user or key ever reaches it. See modules/system-mail.
     */
    system: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // At most one system project, so two processes creating it on demand race into one row.
  (table) => [uniqueIndex('projects_single_system').on(table.system).where(sql`${table.system}`)],
)

export const memberRole = pgEnum('member_role', ['OWNER', 'ADMIN', 'MEMBER'])

export const memberships = pgTable(
  'memberships',
  {
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: memberRole().notNull().default('MEMBER'),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.userId] }), index().on(table.userId)],
)

/** A claimed Idempotency-Key. The row is written in the same transaction as the work it guards. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    key: text().notNull(),
    method: text().notNull(),
    path: text().notNull(),
    statusCode: integer().notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.key] }), index().on(table.expiresAt)],
)
