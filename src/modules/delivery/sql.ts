import { and, eq, getTableColumns, gte, inArray, lt, lte, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { executeNamed } from '../../db/named-statement.js'
import { emailAttachments, emails } from '../../db/schema/index.js'
import type { EmailEventSource } from '../feedback/email-events.js'
import { suppressedEmailErrors } from '../suppressions/service.js'

/** `wakeOutbox` notifies this channel after emails are committed so idle outbox workers wake at once. */
export const outboxChannel = 'mailroom_outbox'

/**
 * Which of the outbox's claim loops new mail concerns (the NOTIFY payload): transactional and workflow mail, campaign
 * mail, or both. Waking only the loop concerned saves the other a claim that would find nothing.
 */
export type OutboxWake = 'urgent' | 'bulk' | 'all'

/**
 * Added to the priority of a held project's queued emails. The claim only reads priorities below it, so a
 * held backlog sits outside the claim's index range and costs the other projects' claims nothing.
 */
export const heldPriorityOffset = 16_384

/**
 * Whether the outbox holds a project's mail of one stream, over the `projects` row named `project`: while it is
 * disabled (a failed payment) or the reputation guard pauses all of its sending, and marketing mail (`marketing`,
 * a boolean SQL expression) also while the guard pauses its marketing stream. Every path that queues mail reads
 * this one condition.
 */
export function sendingHeld(project: SQL, marketing: SQL): SQL {
  return sql`(${project}.disabled OR ${project}.sending_paused_reason IS NOT NULL
    OR (${marketing} AND ${project}.marketing_paused_reason IS NOT NULL))`
}

export type ClaimedEmail = typeof emails.$inferSelect

export type EmailInsert = Pick<
  typeof emails.$inferInsert,
  | 'projectId'
  | 'contactId'
  | 'templateId'
  | 'campaignId'
  | 'fromName'
  | 'replyTo'
  | 'toName'
  | 'fromEmail'
  | 'toEmail'
  | 'subject'
  | 'html'
  | 'messageId'
  | 'submittedMessageId'
  | 'workflowId'
  | 'workflowExecutionId'
> & { id: string; sourceType: string; priority: number; headers: Record<string, string>; marketing: boolean }

// The JSON rows of an insert (`EmailInsert`), as the column definitions of their recordset.
const emailRowColumns = sql.raw(`id uuid, "projectId" uuid, "contactId" uuid, "templateId" uuid, "campaignId" uuid,
  "sourceType" text, priority smallint, "fromEmail" text, "fromName" text, "replyTo" text, "toEmail" text,
  "toName" text, subject text, html text, headers jsonb, "messageId" text, "submittedMessageId" uuid,
  "workflowId" uuid, "workflowExecutionId" uuid, marketing boolean`)

/** `rows`, a jsonb parameter holding `EmailInsert` rows, as the relation `v` that `insertEmailsFrom` reads. */
export function emailRowsOf(rows: SQL): SQL {
  return sql`jsonb_to_recordset(${rows}::jsonb) AS v(${emailRowColumns})`
}

/**
 * The outbox insert of the rows of `source`, a relation named `v` (`emailRowsOf`, or a CTE of it). Whether an
 * email is tracked is fixed here, from its project's mode, so every retry is composed the same way. An email to an
 * address on its project's suppression list is stored FAILED with the reason, never queued: by any path (send,
 * campaigns, workflows) and without a second statement. Held projects' mail (`sendingHeld`, per row and stream)
 * is queued outside the claim's range.
 */
export function insertEmailsFrom(source: SQL): SQL {
  return sql`
    INSERT INTO emails (id, project_id, contact_id, template_id, campaign_id, source_type, priority, from_email,
      from_name, reply_to, to_email, to_name, subject, html, headers, message_id, submitted_message_id, workflow_id,
      workflow_execution_id, tracked, marketing_stream, status, failed_at, last_error)
    SELECT v.id, v."projectId", v."contactId", v."templateId", v."campaignId", v."sourceType"::email_source_type,
      v.priority + CASE WHEN ${sendingHeld(sql`p`, sql`v.marketing`)} THEN ${heldPriorityOffset} ELSE 0 END,
      v."fromEmail", v."fromName", v."replyTo", v."toEmail", v."toName", v.subject, v.html,
      v.headers, v."messageId", v."submittedMessageId", v."workflowId", v."workflowExecutionId",
      coalesce(p.tracking = 'ENABLED' OR (p.tracking = 'MARKETING_ONLY' AND v.marketing), false),
      v.marketing,
      CASE WHEN s.reason IS NULL THEN 'QUEUED' ELSE 'FAILED' END::email_status,
      CASE WHEN s.reason IS NULL THEN NULL ELSE now() END,
      CASE s.reason WHEN 'complaint' THEN ${suppressedEmailErrors.complaint}
        WHEN 'bounce' THEN ${suppressedEmailErrors.bounce} END
    FROM ${source}
    LEFT JOIN projects AS p ON p.id = v."projectId"
    LEFT JOIN suppressions AS s ON s.project_id = v."projectId" AND s.email = lower(v."toEmail")`
}

/**
 * Many rows in one statement with a single JSON parameter: a campaign enqueues thousands at once, and
 * binding ~20 parameters per row through the query builder costs more than the insert itself.
 */
export async function insertEmails(db: Executor, rows: EmailInsert[]): Promise<void> {
  await db.execute(insertEmailsFrom(emailRowsOf(sql`${JSON.stringify(rows)}`)))
}

/** How a caller stores the outbox rows of `enqueueEmails` (`insertEmails`, or a statement that does more). */
export type InsertEmails = (db: Executor, rows: EmailInsert[]) => Promise<void>
export type EmailAttachmentRow = typeof emailAttachments.$inferSelect

/** Campaign mail and anything else sent in bulk: priorities from here on are claimed apart (see the outbox). */
export const bulkPriority = 10

/** How much one claim takes: at most `urgent` transactional and workflow emails and `bulk` campaign ones. */
export type ClaimLimits = { urgent: number; bulk: number }

/**
 * What a claim took: the emails to send, in priority order, and those of them with attachments; how many of each
 * kind it took, suppressed ones included.
 */
export type Claim = { emails: ClaimedEmail[]; withAttachments: string[]; urgent: number; bulk: number }

const emailColumns = Object.entries(getTableColumns(emails))
// Each column under its property name, so a row maps back to a ClaimedEmail.
const emailColumnsAsKeys = sql.join(
  emailColumns.map(([key, column]) => sql`${column} AS ${sql.identifier(key)}`),
  sql`, `,
)

// The urgent and bulk ranges, each a range scan of the claim index; emails of a project whose sending is held
// but that missed the priority offset (queued by a transaction that raced the hold, or retried) are left alone.
function dueEmails(lowest: number, beyond: number) {
  return sql`
    SELECT e.id, e.project_id, e.to_email FROM emails AS e
    WHERE e.status = 'QUEUED' AND e.priority >= ${lowest} AND e.priority < ${beyond} AND e.next_attempt_at <= now()
      AND NOT EXISTS (SELECT 1 FROM projects AS p WHERE p.id = e.project_id
        AND ${sendingHeld(sql`p`, sql`e.marketing_stream`)})
    ORDER BY e.priority, e.next_attempt_at`
}

/**
 * Takes due emails and leases them to this worker, in one statement: up to `limits.urgent` transactional and
 * workflow emails and up to `limits.bulk` campaign ones, oldest first within each priority (the outbox claims the
 * two kinds in loops of their own, so one limit is usually 0). SKIP LOCKED lets any number of workers claim side
 * by side without waiting on each other or taking the same row. An email whose address was suppressed (a bounce
 * or a complaint) after it was queued is failed instead, with the reason. Emails of a disabled project, or of
 * one whose sending the reputation guard paused, stay QUEUED until it is enabled or resumed.
 */
export async function claimEmails(db: Executor, limits: ClaimLimits, leaseSeconds: number): Promise<Claim> {
  // Named: planning it took 0.57 ms a call, more than running it.
  const result = await executeNamed<Record<string, unknown>>(
    db,
    'outbox-claim',
    sql`
    WITH urgent AS MATERIALIZED (
      ${dueEmails(0, bulkPriority)} LIMIT ${limits.urgent}::int FOR UPDATE OF e SKIP LOCKED
    ), bulk AS MATERIALIZED (
      ${dueEmails(bulkPriority, heldPriorityOffset)} LIMIT ${limits.bulk}::int FOR UPDATE OF e SKIP LOCKED
    ), claimed AS (
      SELECT c.id, s.reason
      FROM (SELECT * FROM urgent UNION ALL SELECT * FROM bulk) AS c
      LEFT JOIN suppressions AS s ON s.project_id = c.project_id AND s.email = lower(c.to_email)
    )
    UPDATE emails
    SET status = CASE WHEN c.reason IS NULL THEN 'SENDING' ELSE 'FAILED' END::email_status,
        attempts = emails.attempts + 1,
        lease_expires_at = CASE WHEN c.reason IS NULL THEN now() + make_interval(secs => ${leaseSeconds}) END,
        failed_at = CASE WHEN c.reason IS NULL THEN emails.failed_at ELSE now() END,
        last_error = CASE c.reason WHEN 'complaint' THEN ${suppressedEmailErrors.complaint}
          WHEN 'bounce' THEN ${suppressedEmailErrors.bounce} ELSE emails.last_error END,
        updated_at = now()
    FROM claimed AS c
    WHERE emails.id = c.id
    RETURNING ${emailColumnsAsKeys},
      EXISTS (SELECT 1 FROM email_attachments AS a WHERE a.email_id = emails.id) AS "hasAttachments"`,
  )
  const claimed: ClaimedEmail[] = []
  const withAttachments: string[] = []
  let urgent = 0
  for (const row of result.rows) {
    const email = Object.fromEntries(
      emailColumns.map(([key, column]) => {
        const value = row[key]
        return [key, value === null ? null : column.mapFromDriverValue(value)]
      }),
    ) as unknown as ClaimedEmail
    if (email.priority < bulkPriority) urgent++
    if (email.status !== 'SENDING') continue
    claimed.push(email)
    if (row.hasAttachments) withAttachments.push(email.id)
  }
  // RETURNING does not keep the scans' order; send in priority order too.
  claimed.sort((a, b) => a.priority - b.priority || a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
  return { emails: claimed, withAttachments, urgent, bulk: result.rows.length - urgent }
}

/**
 * Moves the held projects' queued emails out of the claim's range (see `heldPriorityOffset`): all of them, or only
 * their marketing stream's.
 */
export async function holdQueuedEmails(
  db: Executor,
  projectIds: readonly string[],
  stream: 'all' | 'marketing' = 'all',
): Promise<void> {
  if (projectIds.length === 0) return
  await db
    .update(emails)
    .set({ priority: sql`${emails.priority} + ${heldPriorityOffset}` })
    .where(
      and(
        inArray(emails.projectId, [...projectIds]),
        eq(emails.status, 'QUEUED'),
        lt(emails.priority, heldPriorityOffset),
        stream === 'marketing' ? eq(emails.marketingStream, true) : undefined,
      ),
    )
}

/**
 * Puts a project's held emails back in the claim's range, in their old order, once nothing holds them any more: a
 * project both disabled and paused keeps its mail held until both are lifted, whichever is lifted first, and its
 * marketing mail stays held while its marketing stream is still paused.
 */
export async function releaseHeldEmails(db: Executor, projectId: string): Promise<void> {
  await db
    .update(emails)
    .set({ priority: sql`${emails.priority} - ${heldPriorityOffset}` })
    .where(
      and(
        eq(emails.projectId, projectId),
        eq(emails.status, 'QUEUED'),
        gte(emails.priority, heldPriorityOffset),
        sql`NOT EXISTS (SELECT 1 FROM projects AS p WHERE p.id = ${projectId}
          AND ${sendingHeld(sql`p`, sql`${emails.marketingStream}`)})`,
      ),
    )
}

/**
 * A worker that died mid-send leaves its emails SENDING; once the lease runs out they are queued again.
 * This is a separate statement rather than an OR in the claim so each one walks its own partial index.
 */
export async function requeueExpiredLeases(db: Executor, limit: number): Promise<number> {
  const expired = db
    .select({ id: emails.id })
    .from(emails)
    .where(and(eq(emails.status, 'SENDING'), lte(emails.leaseExpiresAt, sql`now()`)))
    .limit(limit)
    .for('update', { skipLocked: true })
  const rows = await db
    .update(emails)
    .set({ status: 'QUEUED', nextAttemptAt: sql`now()`, leaseExpiresAt: null })
    .where(inArray(emails.id, expired))
    .returning({ id: emails.id })
  return rows.length
}

/**
 * Queues again every email left SENDING, at once. Only for a process that knows it is the database's sole
 * worker (embedded PostgreSQL behind the DATA_DIR lock): whatever is SENDING when it starts belonged to a
 * predecessor that died, and waiting out those leases would only delay the mail.
 */
export async function requeueAllLeases(db: Executor): Promise<number> {
  const rows = await db
    .update(emails)
    .set({ status: 'QUEUED', nextAttemptAt: sql`now()`, leaseExpiresAt: null })
    .where(eq(emails.status, 'SENDING'))
    .returning({ id: emails.id })
  return rows.length
}

/** An email this worker claimed, and which claim: `attempts` grows by one with every claim of the email. */
export type Lease = { id: string; attempts: number }

/**
 * Keeps the leases of emails this worker is still sending, so only a dead worker's leases run out. Returns the
 * ids renewed: a lease missing from them ran out (this worker stalled) and the email may be another's now.
 */
export async function renewLeases(db: Executor, leases: Lease[], leaseSeconds: number): Promise<string[]> {
  if (leases.length === 0) return []
  const result = await db.execute<{ id: string }>(sql`
    UPDATE emails AS e
    SET lease_expires_at = now() + make_interval(secs => ${leaseSeconds})
    FROM jsonb_to_recordset(${JSON.stringify(leases)}::jsonb) AS v(id uuid, attempts int)
    WHERE e.id = v.id AND e.attempts = v.attempts AND e.status = 'SENDING'
    RETURNING e.id`)
  return result.rows.map((row) => row.id)
}

/** A submitted message's envelope sender and bytes, as the outbox sends it to each of its emails' recipients. */
export type SubmittedMessage = { id: string; mailFrom: string; raw: Buffer }

/** The messages relayed by these emails, each looked up with its email's project. */
export async function findSubmittedMessages(
  db: Executor,
  emails: readonly Pick<ClaimedEmail, 'projectId' | 'submittedMessageId'>[],
): Promise<SubmittedMessage[]> {
  const wanted = emails.filter((email) => email.submittedMessageId !== null)
  if (wanted.length === 0) return []
  const result = await db.execute<{ id: string; mail_from: string; raw: Buffer }>(sql`
    SELECT m.id, m.mail_from, m.raw FROM submitted_messages AS m
    JOIN (SELECT DISTINCT * FROM unnest(${sql.param(wanted.map((email) => email.submittedMessageId))}::uuid[],
      ${sql.param(wanted.map((email) => email.projectId))}::uuid[]) AS k(id, project_id)) AS k
      ON m.id = k.id AND m.project_id = k.project_id`)
  return result.rows.map((row) => ({ id: row.id, mailFrom: row.mail_from, raw: row.raw }))
}

export async function findAttachments(db: Executor, emailIds: string[]): Promise<EmailAttachmentRow[]> {
  if (emailIds.length === 0) return []
  return db
    .select()
    .from(emailAttachments)
    .where(inArray(emailAttachments.emailId, emailIds))
    .orderBy(emailAttachments.emailId, emailAttachments.position)
}

/**
 * Each outcome names its claim (`attempts`, as for `renewLeases`): a claim that lost its lease changes nothing.
 * `subject` is the subject as sent, for mail rendered at delivery (campaigns), so the record shows it. `claimedAt`
 * and the transport's answer (`response`, `code`) go to the email's history only.
 */
export type SentUpdate = {
  id: string
  attempts: number
  providerMessageId: string
  sentAt: string
  subject?: string
  response?: string
  claimedAt?: string
}
export type SentRow = EmailEventSource & { sentAt: Date }

// Every outcome statement below also appends the attempt to `email_history`, in a data-modifying CTE over the rows
// it changed: the history costs the recorder no statement, and a claim that lost its lease writes none.

/** Only rows still leased to the same claim are changed, so a late answer never overwrites another claim's. */
export async function markEmailsSent(db: Executor, updates: SentUpdate[]): Promise<SentRow[]> {
  if (updates.length === 0) return []
  const result = await db.execute<Record<string, unknown>>(sql`
    WITH sent AS (
      UPDATE emails AS e
      SET status = 'SENT', provider_message_id = v."providerMessageId", sent_at = v."sentAt",
          subject = coalesce(v.subject, e.subject), lease_expires_at = NULL, last_error = NULL, updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) AS v(id uuid, attempts int, "providerMessageId" text,
        "sentAt" timestamptz, subject text, response text, "claimedAt" timestamptz)
      WHERE e.id = v.id AND e.attempts = v.attempts AND e.status = 'SENDING'
      RETURNING e.id, e.project_id, e.contact_id, e.subject, e.from_email, e.from_name, e.message_id,
        e.provider_message_id, e.template_id, e.campaign_id, e.source_type, e.sent_at, e.attempts,
        v.response, v."claimedAt"
    ), history AS (
      INSERT INTO email_history (email_id, project_id, at, kind, detail)
      SELECT id, project_id, sent_at, 'sent', jsonb_strip_nulls(jsonb_build_object('attempt', attempts,
        'claimedAt', "claimedAt", 'providerMessageId', provider_message_id, 'response', response))
      FROM sent
    )
    SELECT * FROM sent`)
  return result.rows.map((row) => ({
    id: row.id as string,
    projectId: row.project_id as string,
    contactId: row.contact_id as string | null,
    subject: row.subject as string,
    fromEmail: row.from_email as string,
    fromName: row.from_name as string | null,
    messageId: row.message_id as string,
    providerMessageId: row.provider_message_id as string | null,
    templateId: row.template_id as string | null,
    campaignId: row.campaign_id as string | null,
    sourceType: row.source_type as SentRow['sourceType'],
    sentAt: new Date(row.sent_at as string),
  }))
}

export type RetryUpdate = {
  id: string
  attempts: number
  error: string
  delaySeconds: number
  code?: string
  claimedAt?: string
}

export async function markEmailsForRetry(db: Executor, updates: RetryUpdate[]): Promise<void> {
  if (updates.length === 0) return
  await db.execute(sql`
    WITH deferred AS (
      UPDATE emails AS e
      SET status = 'QUEUED', next_attempt_at = now() + make_interval(secs => v."delaySeconds"),
          lease_expires_at = NULL, last_error = v.error, updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(updates)}::jsonb)
        AS v(id uuid, attempts int, error text, "delaySeconds" float8, code text, "claimedAt" timestamptz)
      WHERE e.id = v.id AND e.attempts = v.attempts AND e.status = 'SENDING'
      RETURNING e.id, e.project_id, e.attempts, e.next_attempt_at, v.error, v.code, v."claimedAt"
    )
    INSERT INTO email_history (email_id, project_id, at, kind, detail)
    SELECT id, project_id, now(), 'deferred', jsonb_strip_nulls(jsonb_build_object('attempt', attempts,
      'claimedAt', "claimedAt", 'code', code, 'error', error, 'nextAttemptAt', next_attempt_at))
    FROM deferred`)
}

/** `bounce`: the receiving server refused the recipient or the message (its feedback follows as a bounce). */
export type FailedUpdate = {
  id: string
  attempts: number
  error: string
  code?: string
  claimedAt?: string
  bounce?: boolean
}

/** Returns the ids it changed: only rows still leased, as for `markEmailsSent`. */
export async function markEmailsFailed(db: Executor, updates: FailedUpdate[]): Promise<string[]> {
  if (updates.length === 0) return []
  const result = await db.execute<{ id: string }>(sql`
    WITH failed AS (
      UPDATE emails AS e
      SET status = 'FAILED', failed_at = now(), lease_expires_at = NULL, last_error = v.error, updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(updates)}::jsonb)
        AS v(id uuid, attempts int, error text, code text, "claimedAt" timestamptz, bounce boolean)
      WHERE e.id = v.id AND e.attempts = v.attempts AND e.status = 'SENDING'
      RETURNING e.id, e.project_id, e.attempts, e.failed_at, v.error, v.code, v."claimedAt", v.bounce
    ), history AS (
      INSERT INTO email_history (email_id, project_id, at, kind, detail)
      SELECT id, project_id, failed_at, 'failed', jsonb_strip_nulls(jsonb_build_object('attempt', attempts,
        'claimedAt', "claimedAt", 'code', code, 'error', error, 'bounce', bounce))
      FROM failed
    )
    SELECT id FROM failed`)
  return result.rows.map((row) => row.id)
}
