import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { decodeCursor, keysetPage, timestampText, timestampTextPattern } from '../../db/keyset.js'
import { likeContaining } from '../../db/like.js'
import { suppressions } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { SuppressionCreate, SuppressionListQuery, SuppressionPage } from './schemas.js'

export type SuppressionReason = (typeof suppressions.$inferSelect)['reason']

/** Puts an address on the project's suppression list; a complaint outranks an earlier bounce. */
export async function suppressAddress(
  db: Executor,
  projectId: string,
  email: string,
  reason: SuppressionReason,
  emailId: string | null,
): Promise<void> {
  await db
    .insert(suppressions)
    .values({ projectId, email: email.toLowerCase(), reason, emailId })
    .onConflictDoUpdate({
      target: [suppressions.projectId, suppressions.email],
      set: {
        reason: sql`CASE WHEN excluded.reason = 'complaint' THEN excluded.reason ELSE ${suppressions.reason} END`,
      },
    })
}

/** What a refused email's `last_error` says, by why its address is suppressed. */
export const suppressedEmailErrors: Record<SuppressionReason, string> = {
  bounce: 'suppressed: earlier mail to this address bounced permanently',
  complaint: 'suppressed: the address complained about earlier mail',
}

/** `(created_at, email)` after the cursor's; the timestamp travels as microsecond text (see db/keyset.ts). */
function afterCursor(cursor: string): SQL {
  const [at, email] = decodeCursor(cursor, 2) ?? []
  if (!at || email === undefined || !timestampTextPattern.test(at)) throw new AppError('BAD_REQUEST', 'Invalid cursor')
  return sql`(${suppressions.createdAt}, ${suppressions.email}) < (${at}::timestamptz, ${email})`
}

/** The project's suppressed addresses, newest first; `total` only on the first page, as the spec's cursor lists. */
export async function listSuppressions(
  db: Executor,
  projectId: string,
  query: SuppressionListQuery,
): Promise<SuppressionPage> {
  const filters = and(
    eq(suppressions.projectId, projectId),
    query.search ? sql`${suppressions.email} LIKE ${likeContaining(query.search.trim().toLowerCase())}` : undefined,
    query.reason ? eq(suppressions.reason, query.reason) : undefined,
  )
  const rows = await db
    .select({
      email: suppressions.email,
      reason: suppressions.reason,
      emailId: suppressions.emailId,
      createdAt: suppressions.createdAt,
      sortValue: timestampText(sql`${suppressions.createdAt}`).mapWith(String),
    })
    .from(suppressions)
    .where(and(filters, query.cursor ? afterCursor(query.cursor) : undefined))
    .orderBy(desc(suppressions.createdAt), desc(suppressions.email))
    .limit(query.limit + 1)
  return keysetPage(rows, query, {
    view: ({ sortValue, ...suppression }) => suppression,
    cursorOf: (last) => [last.sortValue, last.email],
    countTotal: async () => {
      const [counted] = await db.select({ total: count() }).from(suppressions).where(filters)
      return counted?.total ?? 0
    },
  })
}

/** Adds an address by hand; one already on the list is a conflict, so its recorded reason is never overwritten. */
export async function addSuppression(db: Executor, projectId: string, input: SuppressionCreate) {
  const [added] = await db
    .insert(suppressions)
    .values({ projectId, email: input.email.trim().toLowerCase(), reason: input.reason, emailId: null })
    .onConflictDoNothing({ target: [suppressions.projectId, suppressions.email] })
    .returning({
      email: suppressions.email,
      reason: suppressions.reason,
      emailId: suppressions.emailId,
      createdAt: suppressions.createdAt,
    })
  if (!added) throw new AppError('CONFLICT', `${input.email} is already on the suppression list`)
  return added
}

/**
 * Takes an address off the project's list (the mailbox was fixed, the complaint was a mistake): mail to it is
 * sent again. The contact stays unsubscribed; marketing mail needs it to subscribe again.
 */
export async function liftSuppression(db: Executor, projectId: string, email: string): Promise<void> {
  const removed = await db
    .delete(suppressions)
    .where(and(eq(suppressions.projectId, projectId), eq(suppressions.email, email.trim().toLowerCase())))
    .returning({ email: suppressions.email })
  if (removed.length === 0) throw notFound('Suppression')
}
