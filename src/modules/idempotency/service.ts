import { sql } from 'drizzle-orm'
import type { Executor, Transaction } from '../../db/client.js'
import { AppError } from '../../errors.js'

export type IdempotencyClaim = {
  key: string
  method: string
  path: string
  ttlHours: number
}

type ExistingClaim = { method: string; path: string; status_code: number; created_at: Date }

/**
 * Claims the key inside the transaction that does the work. A concurrent request with the same key waits on
 * the primary key until this transaction ends: it then sees the committed claim (409), or, when the work was
 * rolled back (any error, including a 4xx), claims the key itself. An expired claim is taken over.
 */
export async function claimIdempotencyKey(
  tx: Transaction,
  projectId: string,
  claim: IdempotencyClaim,
  statusCode = 200,
): Promise<void> {
  const claimed = await tx.execute(sql`
    INSERT INTO idempotency_keys (project_id, key, method, path, status_code, expires_at)
    VALUES (${projectId}, ${claim.key}, ${claim.method}, ${claim.path}, ${statusCode},
            now() + make_interval(secs => ${claim.ttlHours * 3600}))
    ON CONFLICT (project_id, key) DO UPDATE
      SET method = excluded.method, path = excluded.path, status_code = excluded.status_code,
          created_at = now(), expires_at = excluded.expires_at
      WHERE idempotency_keys.expires_at <= now()
    RETURNING 1`)
  if (claimed.rowCount === 1) return
  const existing = await tx.execute<ExistingClaim>(sql`
    SELECT method, path, status_code, created_at FROM idempotency_keys
    WHERE project_id = ${projectId} AND key = ${claim.key}`)
  const original = existing.rows[0]
  throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key has already been used for another request', {
    details: {
      key: claim.key,
      originalRequest: original ? { method: original.method, path: original.path } : null,
      originalRequestAt: original ? new Date(original.created_at).toISOString() : null,
      originalStatusCode: original?.status_code ?? null,
    },
    suggestion: 'Use a new Idempotency-Key for a new request',
  })
}

export async function deleteExpiredIdempotencyKeys(db: Executor): Promise<number> {
  const deleted = await db.execute(sql`DELETE FROM idempotency_keys WHERE expires_at <= now()`)
  return deleted.rowCount ?? 0
}
