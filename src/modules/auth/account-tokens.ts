import { createHash, randomBytes } from 'node:crypto'
import { and, count, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { accountTokens } from '../../db/schema/index.js'

export type AccountTokenPurpose = (typeof accountTokens.$inferSelect)['purpose']

const accountTokenLifetimeMs = 60 * 60 * 1000

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** A new token for a user's address; the caller mails it. 64 hex characters, as Plunk's. */
export async function issueAccountToken(
  tx: Executor,
  purpose: AccountTokenPurpose,
  userId: string,
  email: string,
): Promise<string> {
  const token = randomBytes(32).toString('hex')
  await tx.insert(accountTokens).values({
    tokenHash: hashToken(token),
    purpose,
    userId,
    email,
    expiresAt: new Date(Date.now() + accountTokenLifetimeMs),
  })
  return token
}

/** Tokens of this purpose issued to the user in the last hour: the per-address request limit counts these. */
export async function countRecentAccountTokens(
  db: Executor,
  purpose: AccountTokenPurpose,
  userId: string,
): Promise<number> {
  const [row] = await db
    .select({ issued: count() })
    .from(accountTokens)
    .where(
      and(
        eq(accountTokens.userId, userId),
        eq(accountTokens.purpose, purpose),
        gt(accountTokens.createdAt, sql`now() - interval '1 hour'`),
      ),
    )
  return row?.issued ?? 0
}

/**
 * Marks a token used and returns whom it was for, in one statement so two requests cannot both use it.
 * A token of another purpose, used, expired or unknown gives undefined and is left as it was.
 */
export async function consumeAccountToken(
  tx: Executor,
  purpose: AccountTokenPurpose,
  token: string,
): Promise<{ userId: string; email: string } | undefined> {
  const [row] = await tx
    .update(accountTokens)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(accountTokens.tokenHash, hashToken(token)),
        eq(accountTokens.purpose, purpose),
        isNull(accountTokens.usedAt),
        gt(accountTokens.expiresAt, sql`now()`),
      ),
    )
    .returning({ userId: accountTokens.userId, email: accountTokens.email })
  return row
}
