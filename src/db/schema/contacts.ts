import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt, updatedAt } from './columns.js'
import { projects } from './foundation.js'

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' })

/**
 * One row per (project, email). Emails are stored trimmed and lower-cased (the check constraint makes a
 * forgotten normalisation fail loudly), so the unique constraint is also the case-insensitive identity.
 */
export const contacts = pgTable(
  'contacts',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    subscribed: boolean().notNull().default(false),
    snoozedUntil: timestamp({ withTimezone: true, mode: 'date' }),
    data: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    unique('contacts_project_email_unique').on(table.projectId, table.email),
    check('contacts_email_normalised', sql`${table.email} = lower(btrim(${table.email}))`),
    // Keyset pagination in creation order (the default list order).
    index().on(table.projectId, table.createdAt, table.id),
    index('contacts_snoozed_until_idx').on(table.snoozedUntil).where(sql`${table.snoozedUntil} IS NOT NULL`),
  ],
)

export const jobState = ['queued', 'running', 'completed', 'failed'] as const

/** An uploaded CSV and the progress of its import; the file stays here so the job payload is only an id. */
export const contactImports = pgTable(
  'contact_imports',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    state: text({ enum: jobState }).notNull().default('queued'),
    file: bytea(),
    fileBytes: integer().notNull(),
    totalRows: integer().notNull().default(0),
    processedRows: integer().notNull().default(0),
    created: integer().notNull().default(0),
    updated: integer().notNull().default(0),
    failed: integer().notNull().default(0),
    errors: jsonb().$type<{ row: number; email: string | null; message: string }[]>().notNull().default([]),
    error: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (table) => [index().on(table.projectId, table.createdAt)],
)

export const bulkAction = ['subscribe', 'unsubscribe', 'delete'] as const

export const contactBulkJobs = pgTable(
  'contact_bulk_jobs',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    action: text({ enum: bulkAction }).notNull(),
    contactIds: uuid().array().notNull(),
    state: text({ enum: jobState }).notNull().default('queued'),
    total: integer().notNull(),
    processed: integer().notNull().default(0),
    affected: integer().notNull().default(0),
    error: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (table) => [index().on(table.projectId, table.createdAt)],
)
