import { eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { decodeCursor, type KeysetPage, keysetPage, timestampTextPattern, uuidPattern } from '../../db/keyset.js'
import { emails } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { EmailListQuery, EmailTimeline, EmailView } from './schemas.js'
import { countEmailRows, type EmailRow, findEmailRow, findHistoryRows, listEmailRows } from './sql.js'
import { timelineOf } from './timeline.js'

const dayMs = 24 * 3_600_000
/** The widest window one listing reads: a busy project's month is already millions of rows. */
const maxListRangeDays = 31
const defaultListRangeDays = 7
/** A first page's `total` counts this many matches at most. */
const maxListTotal = 10_000

function toEmailView(row: EmailRow): EmailView {
  return {
    id: row.id,
    messageId: row.messageId,
    providerMessageId: row.providerMessageId,
    status: row.status,
    sourceType: row.sourceType,
    relayed: row.submittedMessageId !== null,
    from: { email: row.fromEmail, name: row.fromName },
    to: { email: row.toEmail, name: row.toName },
    replyTo: row.replyTo,
    subject: row.subject,
    contactId: row.contactId,
    templateId: row.templateId,
    campaignId: row.campaignId,
    workflowId: row.workflowId,
    workflowExecutionId: row.workflowExecutionId,
    sizeBytes: row.sizeBytes,
    tracked: row.tracked,
    attempts: row.attempts,
    lastError: row.lastError,
    nextAttemptAt: row.status === 'QUEUED' ? row.nextAttemptAt : null,
    opens: row.opens,
    clicks: row.clicks,
    machineOpens: row.machineOpens,
    machineClicks: row.machineClicks,
    createdAt: row.createdAt,
    sentAt: row.sentAt,
    deliveredAt: row.deliveredAt,
    openedAt: row.openedAt,
    clickedAt: row.clickedAt,
    bouncedAt: row.bouncedAt,
    complainedAt: row.complainedAt,
    failedAt: row.failedAt,
  }
}

/** `GET /emails/:id`: the email and its whole history; another project's email is as missing as none. */
export async function getEmailTimeline(db: Executor, projectId: string, emailId: string): Promise<EmailTimeline> {
  const [row, stored] = await Promise.all([
    findEmailRow(db, projectId, emailId),
    findHistoryRows(db, projectId, emailId),
  ])
  if (!row) throw notFound('Email')
  const email = toEmailView(row)
  return { ...email, history: timelineOf(email, stored) }
}

function badQuery(field: string, message: string): AppError {
  return new AppError('BAD_REQUEST', 'Invalid query parameters', { errors: [{ field, message, code: 'custom' }] })
}

/** The accepted-at window of a listing: 7 days back from `endDate` (now) by default, never wider than 31 days. */
function rangeOf(query: EmailListQuery): { start: Date; end: Date } {
  const end = query.endDate ?? new Date()
  const start = query.startDate ?? new Date(end.getTime() - defaultListRangeDays * dayMs)
  if (start.getTime() >= end.getTime()) throw badQuery('startDate', 'startDate must be before endDate')
  if (end.getTime() - start.getTime() > maxListRangeDays * dayMs) {
    throw badQuery('startDate', `startDate may be at most ${maxListRangeDays} days before endDate`)
  }
  return { start, end }
}

/**
 * `GET /emails`: a project's emails newest first, keyset-paginated on (created_at, id), within a bounded window
 * and narrowed by the filters given. `total` (first page only) counts up to `maxListTotal`.
 */
export async function listEmails(
  db: Executor,
  projectId: string,
  query: EmailListQuery,
): Promise<KeysetPage<EmailView>> {
  const { start, end } = rangeOf(query)
  const filters: SQL[] = [
    eq(emails.projectId, projectId),
    sql`${emails.createdAt} >= ${start.toISOString()}`,
    sql`${emails.createdAt} < ${end.toISOString()}`,
  ]
  if (query.recipient) filters.push(sql`lower(${emails.toEmail}) = lower(${query.recipient})`)
  if (query.status) filters.push(inArray(emails.status, query.status))
  if (query.sourceType) filters.push(eq(emails.sourceType, query.sourceType))
  if (query.contactId) filters.push(eq(emails.contactId, query.contactId))
  if (query.campaignId) filters.push(eq(emails.campaignId, query.campaignId))
  if (query.workflowId) filters.push(eq(emails.workflowId, query.workflowId))
  if (query.templateId) filters.push(eq(emails.templateId, query.templateId))
  const counted = [...filters]
  if (query.cursor) {
    const parts = decodeCursor(query.cursor, 2)
    if (!parts || !timestampTextPattern.test(parts[0] ?? '') || !uuidPattern.test(parts[1] ?? '')) {
      throw new AppError('BAD_REQUEST', 'Invalid cursor')
    }
    filters.push(sql`(${emails.createdAt}, ${emails.id}) < (${parts[0]}::timestamptz, ${parts[1]}::uuid)`)
  }
  const rows = await listEmailRows(db, filters, query.limit)
  return keysetPage(rows, query, {
    view: toEmailView,
    cursorOf: (last) => [last.sortValue, last.id],
    countTotal: () => countEmailRows(db, counted, maxListTotal),
  })
}
