import { sql } from 'drizzle-orm'
import {
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt, updatedAt } from './columns.js'
import { contacts } from './contacts.js'
import { projects } from './foundation.js'

const moment = () => timestamp({ withTimezone: true, mode: 'date' })
const projectReference = () =>
  uuid()
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' })

export const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' })

export const emailSourceType = pgEnum('email_source_type', ['TRANSACTIONAL', 'CAMPAIGN', 'WORKFLOW'])

/** QUEUED → SENDING → SENT | FAILED is the outbox; the later states come from delivery feedback. */
export const emailStatus = pgEnum('email_status', [
  'QUEUED',
  'SENDING',
  'SENT',
  'FAILED',
  'DELIVERED',
  'BOUNCED',
  'COMPLAINED',
  'OPENED',
  'CLICKED',
])

/**
 * A message taken over SMTP submission (the relay), as the client wrote it less its Bcc and Idempotency-Key
 * headers: stored once however many recipients it has, and sent as it is to each (emails point to it). Kept out
 * of `emails`, like attachments, so the rows the outbox scans stay small.
 */
export const submittedMessages = pgTable(
  'submitted_messages',
  {
    id: uuid().primaryKey(),
    projectId: projectReference(),
    /** The envelope sender the client gave (MAIL FROM); its emails' `from_email` is the From header's address. */
    mailFrom: text().notNull(),
    raw: bytea().notNull(),
    /** The message's Idempotency-Key header: a resubmission answers with the ids of the emails this one made. */
    idempotencyKey: text(),
    createdAt: createdAt(),
  },
  (table) => [
    index().on(table.projectId, table.createdAt),
    index().on(table.projectId, table.idempotencyKey).where(sql`${table.idempotencyKey} IS NOT NULL`),
  ],
)

/** One row per recipient: the durable outbox and the sent-email record at once. */
export const emails = pgTable(
  'emails',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: projectReference(),
    contactId: uuid().references(() => contacts.id, { onDelete: 'set null' }),
    // Template and campaign ids stay plain ids: the sent record keeps naming them after they are deleted.
    templateId: uuid(),
    campaignId: uuid(),
    /** The workflow and execution whose SEND_EMAIL step queued a workflow email, plain ids like the campaign's. */
    workflowId: uuid(),
    workflowExecutionId: uuid(),
    sourceType: emailSourceType().notNull().default('TRANSACTIONAL'),
    /** Lower goes first: 0 transactional, higher for bulk. */
    priority: smallint().notNull().default(0),
    fromEmail: text().notNull(),
    fromName: text(),
    replyTo: text(),
    toEmail: text().notNull(),
    toName: text(),
    subject: text().notNull(),
    html: text().notNull(),
    headers: jsonb().$type<Record<string, string>>().notNull().default({}),
    /** Whether the outbox adds the open pixel and click redirects; decided at enqueue from the project's mode. */
    tracked: boolean().notNull().default(false),
    /**
     * The reputation guard's marketing stream (campaigns, MARKETING templates), held while that stream is paused;
     * the rest is the transactional stream, held only when the whole project is. Fixed at enqueue.
     */
    marketingStream: boolean().notNull().default(false),
    status: emailStatus().notNull().default('QUEUED'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: moment().notNull().defaultNow(),
    leaseExpiresAt: moment(),
    lastError: text(),
    /** Our Message-ID (without angle brackets), fixed at enqueue so every retry carries the same one. */
    messageId: text().notNull(),
    providerMessageId: text(),
    sentAt: moment(),
    failedAt: moment(),
    // Delivery feedback: first-seen moments and engagement counters (opens and clicks keep counting).
    // `opened_at`, `clicked_at`, `opens` and `clicks` count people only; machine hits (privacy proxies, link
    // scanners: src/modules/feedback/machine-hits.ts) have counters of their own.
    deliveredAt: moment(),
    openedAt: moment(),
    clickedAt: moment(),
    bouncedAt: moment(),
    complainedAt: moment(),
    opens: integer().notNull().default(0),
    clicks: integer().notNull().default(0),
    machineOpens: integer().notNull().default(0),
    machineClicks: integer().notNull().default(0),
    /** The latest click of anyone and its link: two different links within a moment are a scanner's burst. */
    lastClickedAt: moment(),
    lastClickedLink: text(),
    /** Mail taken over SMTP submission is sent as the client's message, stored once for all its recipients. */
    submittedMessageId: uuid().references(() => submittedMessages.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('emails_claim_index').on(table.priority, table.nextAttemptAt).where(sql`${table.status} = 'QUEUED'`),
    index('emails_lease_index').on(table.leaseExpiresAt).where(sql`${table.status} = 'SENDING'`),
    index().on(table.projectId, table.createdAt),
    // Provider feedback (SES through SNS) names the email by the id the provider returned at send. Partial:
    // queued and leased emails have none, and every outbox insert and claim would add an entry for nothing.
    index('emails_provider_message_id_index')
      .on(table.providerMessageId)
      .where(sql`${table.providerMessageId} IS NOT NULL`),
    // GET /emails?recipient=: the emails to one address, newest first, in a project of millions (a support desk's
    // first question). Its cost on each insert was measured against the /v1/send benchmark (bench/README.md).
    index('emails_recipient_index').on(table.projectId, sql`lower(${table.toEmail})`, table.createdAt),
    // Finds one project's queued emails when the reputation guard holds or releases them.
    index('emails_queued_project_index').on(table.projectId).where(sql`${table.status} = 'QUEUED'`),
    // A contact's emails: email-activity conditions for one contact, and the set-null of a deleted contact.
    index('emails_contact_index').on(table.contactId).where(sql`${table.contactId} IS NOT NULL`),
    // A campaign's emails (progress, cancel), and its recipients by state a page at a time in id order (the id
    // keeps each status's entries in cursor order); only campaign mail has an entry.
    index('emails_campaign_index')
      .on(table.campaignId, table.status, table.id)
      .where(sql`${table.campaignId} IS NOT NULL`),
    // A workflow's emails, newest first (GET /emails?workflowId=); only workflow mail has an entry.
    index('emails_workflow_index').on(table.workflowId, table.createdAt).where(sql`${table.workflowId} IS NOT NULL`),
    // Deleting a submitted message (its project's deletion) checks for emails pointing to it; only relayed mail has one.
    index('emails_submitted_message_index')
      .on(table.submittedMessageId)
      .where(sql`${table.submittedMessageId} IS NOT NULL`),
  ],
)

/** Kept apart so large files do not bloat the rows the outbox scans and updates. */
export const emailAttachments = pgTable(
  'email_attachments',
  {
    emailId: uuid()
      .notNull()
      .references(() => emails.id, { onDelete: 'cascade' }),
    position: smallint().notNull(),
    filename: text().notNull(),
    contentType: text().notNull(),
    content: bytea().notNull(),
    contentId: text(),
    disposition: text().$type<'attachment' | 'inline'>().notNull().default('attachment'),
  },
  (table) => [primaryKey({ columns: [table.emailId, table.position] })],
)

/** The local mailbox of the `capture` transport. */
export const capturedMessages = pgTable(
  'captured_messages',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: projectReference(),
    emailId: uuid(),
    /** The campaign of a campaign email: its stats count what was captured instead of delivered. */
    campaignId: uuid(),
    fromEmail: text().notNull(),
    toEmails: text().array().notNull(),
    subject: text().notNull(),
    raw: bytea().notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    index().on(table.projectId, table.createdAt),
    // An account email's capture, found from its `account_emails` row (the mailboxes of its user and project).
    index().on(table.emailId).where(sql`${table.emailId} IS NOT NULL`),
    index().on(table.projectId, table.campaignId).where(sql`${table.campaignId} IS NOT NULL`),
  ],
)
