import { and, count, desc, eq, lt, or } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { capturedMessages } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { MailboxPage, MailboxQuery } from './schemas.js'

type Cursor = { createdAt: Date; id: string }

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString('base64url')
}

function decodeCursor(value: string): Cursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(value, 'base64url').toString()) as [string, string]
    const date = new Date(createdAt)
    if (Number.isNaN(date.getTime()) || typeof id !== 'string') throw new Error('bad cursor')
    return { createdAt: date, id }
  } catch {
    throw new AppError('BAD_REQUEST', 'Invalid cursor')
  }
}

/** The capture transport's mailbox, newest first; `total` only on the first page, as the spec's cursor lists. */
export async function listCapturedMessages(db: Executor, projectId: string, query: MailboxQuery): Promise<MailboxPage> {
  const after = query.cursor ? decodeCursor(query.cursor) : undefined
  const rows = await db
    .select({
      id: capturedMessages.id,
      emailId: capturedMessages.emailId,
      from: capturedMessages.fromEmail,
      to: capturedMessages.toEmails,
      subject: capturedMessages.subject,
      createdAt: capturedMessages.createdAt,
    })
    .from(capturedMessages)
    .where(
      and(
        eq(capturedMessages.projectId, projectId),
        after
          ? or(
              lt(capturedMessages.createdAt, after.createdAt),
              and(eq(capturedMessages.createdAt, after.createdAt), lt(capturedMessages.id, after.id)),
            )
          : undefined,
      ),
    )
    .orderBy(desc(capturedMessages.createdAt), desc(capturedMessages.id))
    .limit(query.limit + 1)
  const hasMore = rows.length > query.limit
  const data = rows.slice(0, query.limit)
  const last = data.at(-1)
  const [counted] = after
    ? [{ total: 0 }]
    : await db.select({ total: count() }).from(capturedMessages).where(eq(capturedMessages.projectId, projectId))
  return { data, cursor: last && hasMore ? encodeCursor(last) : '', hasMore, total: counted?.total ?? 0 }
}

export async function getCapturedMessageRaw(db: Executor, projectId: string, id: string): Promise<Buffer> {
  const [row] = await db
    .select({ raw: capturedMessages.raw })
    .from(capturedMessages)
    .where(and(eq(capturedMessages.projectId, projectId), eq(capturedMessages.id, id)))
  if (!row) throw notFound('Message')
  return row.raw
}
