import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { projects } from './foundation.js'

/**
 * A project's webhook endpoint: where events of the types it names are POSTed, signed per Standard Webhooks.
 * `secret` is sealed under the server's SECRET (db/sealed-text.ts, bound to the endpoint's id), not hashed: every
 * delivery is signed with it. After a rotation `previousSecret` still signs, beside it, until `previousSecretExpiresAt`.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    url: text().notNull(),
    description: text().notNull().default(''),
    /** Exact names or patterns where `*` stands for any run of characters (`email.*`, `*`). */
    eventTypes: text().array().notNull(),
    enabled: boolean().notNull().default(true),
    /** Why it was disabled by Mailroom itself (`failing`); null when enabled or disabled by hand. */
    disabledReason: text(),
    secret: text().notNull(),
    previousSecret: text(),
    previousSecretExpiresAt: timestamp({ withTimezone: true, mode: 'date' }),
    /** The first failed attempt since the last successful one; null while the endpoint answers 2xx. */
    failingSince: timestamp({ withTimezone: true, mode: 'date' }),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('webhook_endpoints_project_index').on(table.projectId, table.createdAt)],
)

/**
 * One event to deliver to one endpoint; its id is the `webhook-id` of every attempt. Written by the event bus's
 * subscriber in the dispatch transaction (see modules/webhooks/fan-out.ts), so no committed event is missed.
 * `status`: PENDING (due at `nextAttemptAt`; in flight while `leasedUntil` is ahead), DELIVERED or FAILED.
 */
export const webhookMessages = pgTable(
  'webhook_messages',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid().notNull(),
    endpointId: uuid()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The event it carries; null for a test message. Not a foreign key: the event log can be pruned. */
    eventId: uuid(),
    eventType: text().notNull(),
    /** The event's payload (the spec's `event` object), copied so a deleted event is still delivered. */
    data: jsonb().$type<Record<string, unknown>>().notNull(),
    /** When the event happened: the payload's `timestamp`, the log's order and the replay window. */
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    status: text().$type<'PENDING' | 'DELIVERED' | 'FAILED'>().notNull().default('PENDING'),
    /** Attempts since the message was made, retried by hand or replayed: the retry schedule's position. */
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    leasedUntil: timestamp({ withTimezone: true, mode: 'date' }),
    lastAttemptAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (table) => [
    check('webhook_messages_status_check', sql`${table.status} IN ('PENDING', 'DELIVERED', 'FAILED')`),
    index('webhook_messages_endpoint_index').on(table.endpointId, table.createdAt, table.id),
    // The claim's walk per endpoint, and the loop's look; delivered and failed messages stay out of it.
    index('webhook_messages_due_index')
      .on(table.endpointId, table.nextAttemptAt)
      .where(sql`${table.status} = 'PENDING'`),
    index('webhook_messages_pending_index').on(table.nextAttemptAt).where(sql`${table.status} = 'PENDING'`),
    index('webhook_messages_retention_index').on(table.createdAt),
  ],
)

/** One HTTP attempt of a message: the endpoint's delivery log. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    messageId: uuid()
      .notNull()
      .references(() => webhookMessages.id, { onDelete: 'cascade' }),
    endpointId: uuid().notNull(),
    at: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    succeeded: boolean().notNull(),
    /** The HTTP status; null when no answer came (timeout, refused address, connection). */
    responseStatus: integer(),
    /** The first kilobyte of the answer's body. */
    responseBody: text().notNull().default(''),
    /** Why there was no answer. */
    error: text(),
    latencyMs: integer().notNull(),
    url: text().notNull(),
  },
  (table) => [index('webhook_attempts_message_index').on(table.messageId, table.id)],
)
