import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'

/**
 * The kinds of an email's history entries and what each one's `detail` holds. Attempts (`sent`, `deferred`,
 * `failed`) carry `attempt` (the claim's number, from 1), `claimedAt` and the transport's answer; feedback carries
 * its evidence: `source` is `smtp` (our transport's own reply), `provider` (SES reports) or `tracking` (our pixel
 * and redirects).
 */
export const emailHistoryKinds = [
  /** Handed over: `providerMessageId`, `response` (the SMTP server's final reply, when the transport gives one). */
  'sent',
  /** Refused for now: `code`, `error`, `nextAttemptAt`. */
  'deferred',
  /** Given up on: `code`, `error`, `bounce` when the receiving server refused the recipient or the message. */
  'failed',
  'delivered',
  /** `bounceType` (Permanent or Transient), then the evidence: `code` and `response`, or `bounceSubType`, `diagnostic`. */
  'bounced',
  /** `complaintFeedbackType`, `userAgent` when the provider says. */
  'complained',
  /** `machine` (true or false), `reason` for a machine's, `userAgent`. */
  'opened',
  /** `link`, `machine`, `reason` for a machine's, `userAgent`. */
  'clicked',
  /** `via`: `link` (the recipient's unsubscribe), `bounce` or `complaint` (unsubscribed by the report). */
  'unsubscribed',
] as const
export type EmailHistoryKind = (typeof emailHistoryKinds)[number]

export type EmailHistoryInsert = {
  emailId: string
  projectId: string
  at: Date
  kind: EmailHistoryKind
  detail: Record<string, unknown>
}

/** Drops undefined and null values, so a detail only says what is known. */
export function detailOf(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== null))
}

/** Entries written outside the outbox's own statements (feedback, unsubscribes): one multi-row INSERT. */
export async function insertHistory(db: Executor, entries: readonly EmailHistoryInsert[]): Promise<void> {
  if (entries.length === 0) return
  await db.execute(sql`
    INSERT INTO email_history (email_id, project_id, at, kind, detail)
    SELECT v."emailId", v."projectId", v.at, v.kind, v.detail
    FROM jsonb_to_recordset(${JSON.stringify(entries)}::jsonb)
      AS v("emailId" uuid, "projectId" uuid, at timestamptz, kind text, detail jsonb)`)
}

/**
 * An unsubscribe through a campaign's link, on that campaign's email to the contact (the link names the contact and
 * the campaign, not the email). Found through the contact's emails, which are few, not the campaign's.
 */
export async function insertCampaignUnsubscribe(
  db: Executor,
  projectId: string,
  campaignId: string,
  contactId: string,
): Promise<void> {
  await db.execute(sql`
    INSERT INTO email_history (email_id, project_id, at, kind, detail)
    SELECT e.id, e.project_id, now(), 'unsubscribed', '{"via":"link"}'::jsonb FROM emails AS e
    WHERE e.contact_id = ${contactId} AND e.campaign_id = ${campaignId} AND e.project_id = ${projectId}`)
}
