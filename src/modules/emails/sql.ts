import { and, asc, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { timestampText } from '../../db/keyset.js'
import { emailHistory, emails, submittedMessages } from '../../db/schema/index.js'

const { html: _html, headers: _headers, ...listedColumns } = getTableColumns(emails)

/** An email's row as the API shows it, less its content, with the size of a relayed message (from TOAST's header). */
const emailFields = {
  ...listedColumns,
  sizeBytes: sql<number | null>`octet_length(${submittedMessages.raw})`.mapWith(Number),
  /** `created_at` with microseconds, for the list's cursor: a Date keeps milliseconds only. */
  sortValue: sql<string>`${timestampText(sql`${emails.createdAt}`)}`,
}

export type EmailRow = Awaited<ReturnType<typeof findEmailRow>> & object

export async function findEmailRow(db: Executor, projectId: string, emailId: string) {
  const [row] = await db
    .select(emailFields)
    .from(emails)
    .leftJoin(submittedMessages, eq(submittedMessages.id, emails.submittedMessageId))
    .where(and(eq(emails.id, emailId), eq(emails.projectId, projectId)))
  return row
}

/**
 * The stored history of one email (of the caller's project), in the order it happened. In whole milliseconds, as
 * JavaScript's clock reads: an entry timed by the database (`now()`, microseconds) and the next one timed in
 * JavaScript within the same millisecond (a refusal, then its bounce) keep the order they were written in.
 */
export async function findHistoryRows(db: Executor, projectId: string, emailId: string) {
  return db
    .select({ at: emailHistory.at, kind: emailHistory.kind, detail: emailHistory.detail })
    .from(emailHistory)
    .where(and(eq(emailHistory.emailId, emailId), eq(emailHistory.projectId, projectId)))
    .orderBy(sql`date_trunc('milliseconds', ${emailHistory.at})`, asc(emailHistory.id))
}

/**
 * One page of a project's emails matching `filters`, newest first on (created_at, id) after the cursor's
 * position: `emails_project_id_created_at_index` walks the project's range backwards; a campaign, workflow or
 * contact filter may take that one's index instead. `limit + 1` rows, as `keysetPage` wants.
 */
export async function listEmailRows(db: Executor, filters: SQL[], limit: number) {
  return db
    .select(emailFields)
    .from(emails)
    .leftJoin(submittedMessages, eq(submittedMessages.id, emails.submittedMessageId))
    .where(and(...filters))
    .orderBy(desc(emails.createdAt), desc(emails.id))
    .limit(limit + 1)
}

/** Counts at most `cap` matches: a first page's total must not read a month of a busy project. */
export async function countEmailRows(db: Executor, filters: SQL[], cap: number): Promise<number> {
  const result = await db.execute<{ total: number }>(sql`
    SELECT count(*)::int AS total FROM (SELECT 1 FROM emails WHERE ${and(...filters)} LIMIT ${cap}) AS matches`)
  return result.rows[0]?.total ?? 0
}
