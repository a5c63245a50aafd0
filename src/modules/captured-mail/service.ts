import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { decodeCursor, keysetPage, timestampText, timestampTextPattern, uuidPattern } from '../../db/keyset.js'
import { accountEmails, capturedMessages } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { CapturedMessageView, MailboxPage, MailboxQuery } from './schemas.js'

/** `(created_at, id)` after the cursor's; the timestamp travels as microsecond text (see db/keyset.ts). */
function afterCursor(cursor: string) {
  const [at, id] = decodeCursor(cursor, 2) ?? []
  if (!at || !id || !timestampTextPattern.test(at) || !uuidPattern.test(id)) {
    throw new AppError('BAD_REQUEST', 'Invalid cursor')
  }
  return sql`(${capturedMessages.createdAt}, ${capturedMessages.id}) < (${at}::timestamptz, ${id}::uuid)`
}

const columns = {
  id: capturedMessages.id,
  emailId: capturedMessages.emailId,
  from: capturedMessages.fromEmail,
  to: capturedMessages.toEmails,
  subject: capturedMessages.subject,
  createdAt: capturedMessages.createdAt,
  sortValue: timestampText(sql`${capturedMessages.createdAt}`).mapWith(String),
}

/**
 * What a mailbox holds: the project's own captures, and account emails (Mailroom's own, sent from the system
 * project) by whom they concern, e.g. `account_emails.project_id = …` for a project's invitations.
 */
type Mailbox = { projectId?: string; accountEmails?: SQL }

const ownMessages = (projectId: string) => eq(capturedMessages.projectId, projectId)

type Row = CapturedMessageView & { sortValue: string }

/** Newest first by (created_at, id): the microsecond text sorts as the timestamp does, lowercase uuids as uuids. */
const newestFirst = (a: Row, b: Row) =>
  a.sortValue === b.sortValue ? (a.id < b.id ? 1 : -1) : a.sortValue < b.sortValue ? 1 : -1

/**
 * A mailbox's messages, newest first; `total` only on the first page, as the spec's cursor lists. Each source is
 * read by its own index and the two pages merged, as an OR across them would read every captured message.
 */
async function listMailbox(db: Executor, mailbox: Mailbox, query: MailboxQuery): Promise<MailboxPage> {
  const cursor = query.cursor ? afterCursor(query.cursor) : undefined
  const own = mailbox.projectId
    ? (
        await db
          .select(columns)
          .from(capturedMessages)
          .where(and(ownMessages(mailbox.projectId), cursor))
          .orderBy(desc(capturedMessages.createdAt), desc(capturedMessages.id))
          .limit(query.limit + 1)
      ).map((row) => ({ ...row, source: 'PROJECT' as const, kind: null }))
    : []
  const account = mailbox.accountEmails
    ? (
        await db
          .select({ ...columns, kind: accountEmails.kind })
          .from(accountEmails)
          .innerJoin(capturedMessages, eq(capturedMessages.emailId, accountEmails.emailId))
          .where(and(mailbox.accountEmails, cursor))
          .orderBy(desc(capturedMessages.createdAt), desc(capturedMessages.id))
          .limit(query.limit + 1)
      ).map((row) => ({ ...row, source: 'ACCOUNT' as const }))
    : []
  const rows = [...own, ...account].sort(newestFirst).slice(0, query.limit + 1)
  return keysetPage(rows, query, {
    view: ({ sortValue, ...message }) => message,
    cursorOf: (last) => [last.sortValue, last.id],
    countTotal: async () => {
      const [owned] = mailbox.projectId
        ? await db.select({ total: count() }).from(capturedMessages).where(ownMessages(mailbox.projectId))
        : []
      const [concerning] = mailbox.accountEmails
        ? await db
            .select({ total: count() })
            .from(accountEmails)
            .innerJoin(capturedMessages, eq(capturedMessages.emailId, accountEmails.emailId))
            .where(mailbox.accountEmails)
        : []
      return (owned?.total ?? 0) + (concerning?.total ?? 0)
    },
  })
}

async function getMailboxMessageRaw(db: Executor, mailbox: Mailbox, id: string): Promise<Buffer> {
  const [own] = mailbox.projectId
    ? await db
        .select({ raw: capturedMessages.raw })
        .from(capturedMessages)
        .where(and(ownMessages(mailbox.projectId), eq(capturedMessages.id, id)))
    : []
  const [account] =
    !own && mailbox.accountEmails
      ? await db
          .select({ raw: capturedMessages.raw })
          .from(accountEmails)
          .innerJoin(capturedMessages, eq(capturedMessages.emailId, accountEmails.emailId))
          .where(and(mailbox.accountEmails, eq(capturedMessages.id, id)))
      : []
  const row = own ?? account
  if (!row) throw notFound('Message')
  return row.raw
}

/**
 * A project's mailbox. With `invitations` (the caller may invite: admins, owners, the secret key) it also holds the
 * invitation emails of the project; members do not see them, as a link lets its holder join with the invited role.
 */
function projectMailbox(projectId: string, invitations: boolean): Mailbox {
  return { projectId, ...(invitations ? { accountEmails: eq(accountEmails.projectId, projectId) } : {}) }
}

/** The account emails about a user (verification, password reset), as only that user sees them. */
function userMailbox(userId: string): Mailbox {
  return { accountEmails: eq(accountEmails.userId, userId) }
}

export function listCapturedMessages(
  db: Executor,
  projectId: string,
  query: MailboxQuery,
  options: { invitations: boolean },
): Promise<MailboxPage> {
  return listMailbox(db, projectMailbox(projectId, options.invitations), query)
}

export function getCapturedMessageRaw(
  db: Executor,
  projectId: string,
  id: string,
  options: { invitations: boolean },
): Promise<Buffer> {
  return getMailboxMessageRaw(db, projectMailbox(projectId, options.invitations), id)
}

export function listAccountMessages(db: Executor, userId: string, query: MailboxQuery): Promise<MailboxPage> {
  return listMailbox(db, userMailbox(userId), query)
}

export function getAccountMessageRaw(db: Executor, userId: string, id: string): Promise<Buffer> {
  return getMailboxMessageRaw(db, userMailbox(userId), id)
}
