import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'

/**
 * The provider refused an email it had accepted (SES Reject: a virus, a rendering failure): nothing was sent,
 * so the email is FAILED with the reason. Only an email no feedback has moved past SENT is changed, as the
 * status ranking would have it. The spec has no event for this, so none is published. False for an unknown id.
 */
export async function failRejectedEmail(db: Executor, providerMessageId: string, reason: string): Promise<boolean> {
  const result = await db.execute<{ id: string }>(sql`
    WITH target AS (SELECT id, status FROM emails WHERE provider_message_id = ${providerMessageId} LIMIT 1 FOR UPDATE),
    changed AS (
      UPDATE emails AS e
      SET status = 'FAILED', failed_at = now(), lease_expires_at = NULL, last_error = ${reason}, updated_at = now()
      FROM target WHERE e.id = target.id AND target.status IN ('QUEUED', 'SENDING', 'SENT')
      RETURNING e.id, e.project_id, e.failed_at
    ), history AS (
      INSERT INTO email_history (email_id, project_id, at, kind, detail)
      SELECT id, project_id, failed_at, 'failed', jsonb_build_object('source', 'provider', 'error', ${reason}::text)
      FROM changed
    )
    SELECT id FROM target`)
  return result.rows.length > 0
}
