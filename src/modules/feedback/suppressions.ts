import { sql } from 'drizzle-orm'
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

/** What a refused email's `last_error` says, by why its address is suppressed. */
export const suppressedEmailErrors: Record<SuppressionReason, string> = {
  bounce: 'suppressed: earlier mail to this address bounced permanently',
  complaint: 'suppressed: the address complained about earlier mail',
}

/**
 * Fails, instead of sending, those of `emailIds` (queued or being sent) whose address is on their project's
 * suppression list, with the reason in `last_error`; returns their ids. The outbox calls it on each batch it claims, for
 * addresses suppressed after their email was queued (insertEmails handles those suppressed before).
 */
export async function failSuppressedEmails(db: Executor, emailIds: readonly string[]): Promise<string[]> {
  if (emailIds.length === 0) return []
  const result = await db.execute<{ id: string }>(sql`
    UPDATE emails AS e
    SET status = 'FAILED', failed_at = now(), lease_expires_at = NULL, updated_at = now(),
        last_error = CASE s.reason WHEN 'complaint' THEN ${suppressedEmailErrors.complaint}
          ELSE ${suppressedEmailErrors.bounce} END
    FROM suppressions AS s
    WHERE e.id = ANY(${sql.param(emailIds)}::uuid[])
      AND e.status IN ('QUEUED', 'SENDING')
      AND s.project_id = e.project_id AND s.email = lower(e.to_email)
    RETURNING e.id`)
  return result.rows.map((row) => row.id)
}
