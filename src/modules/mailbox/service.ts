import { and, count, desc, eq, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { decodeCursor, keysetPage, timestampText, timestampTextPattern, uuidPattern } from '../../db/keyset.js'
import { capturedMessages } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { MailboxPage, MailboxQuery } from './schemas.js'

/** `(created_at, id)` after the cursor's; the timestamp travels as microsecond text (see db/keyset.ts). */
function afterCursor(cursor: string) {
  const [at, id] = decodeCursor(cursor, 2) ?? []
  if (!at || !id || !timestampTextPattern.test(at) || !uuidPattern.test(id)) {
    throw new AppError('BAD_REQUEST', 'Invalid cursor')
  }
  return sql`(${capturedMessages.createdAt}, ${capturedMessages.id}) < (${at}::timestamptz, ${id}::uuid)`
}

/** The capture transport's mailbox, newest first; `total` only on the first page, as the spec's cursor lists. */
export async function listCapturedMessages(db: Executor, projectId: string, query: MailboxQuery): Promise<MailboxPage> {
  const rows = await db
    .select({
      id: capturedMessages.id,
      emailId: capturedMessages.emailId,
      from: capturedMessages.fromEmail,
      to: capturedMessages.toEmails,
      subject: capturedMessages.subject,
      createdAt: capturedMessages.createdAt,
      sortValue: timestampText(sql`${capturedMessages.createdAt}`).mapWith(String),
    })
    .from(capturedMessages)
    .where(and(eq(capturedMessages.projectId, projectId), query.cursor ? afterCursor(query.cursor) : undefined))
    .orderBy(desc(capturedMessages.createdAt), desc(capturedMessages.id))
    .limit(query.limit + 1)
  return keysetPage(rows, query, {
    view: ({ sortValue, ...message }) => message,
    cursorOf: (last) => [last.sortValue, last.id],
    countTotal: async () => {
      const [counted] = await db
        .select({ total: count() })
        .from(capturedMessages)
        .where(eq(capturedMessages.projectId, projectId))
      return counted?.total ?? 0
    },
  })
}

export async function getCapturedMessageRaw(db: Executor, projectId: string, id: string): Promise<Buffer> {
  const [row] = await db
    .select({ raw: capturedMessages.raw })
    .from(capturedMessages)
    .where(and(eq(capturedMessages.projectId, projectId), eq(capturedMessages.id, id)))
  if (!row) throw notFound('Message')
  return row.raw
}
