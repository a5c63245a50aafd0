import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { suppressions } from '../../db/schema/index.js'

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

/** The suppressed ones among `emails` (any case), by lower-cased address. */
export async function findSuppressed(
  db: Executor,
  projectId: string,
  emails: readonly string[],
): Promise<Map<string, SuppressionReason>> {
  if (emails.length === 0) return new Map()
  const rows = await db
    .select({ email: suppressions.email, reason: suppressions.reason })
    .from(suppressions)
    .where(
      and(
        eq(suppressions.projectId, projectId),
        inArray(
          suppressions.email,
          emails.map((email) => email.toLowerCase()),
        ),
      ),
    )
  return new Map(rows.map((row) => [row.email, row.reason]))
}
