import { and, eq, isNotNull, or } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { projects } from '../../db/schema/index.js'
import { revealProjectKeys, storeProjectKeys } from './keys.js'

/**
 * Rows written before migration 0020 hold their API keys in plaintext, and SQL cannot seal them (it has no
 * SECRET), so every start does: it hashes and seals each row that still has a plaintext key and clears it. A
 * row is sealed once even when several processes start together: the update matches only while its plaintext
 * is still there. Returns how many rows it sealed.
 */
export async function sealPlaintextKeys(db: Database, secret: string): Promise<number> {
  const rows = await db
    .select({ id: projects.id, publicKey: projects.publicKey, secretKey: projects.secretKey })
    .from(projects)
    .where(or(isNotNull(projects.publicKey), isNotNull(projects.secretKey)))
  let sealed = 0
  for (const { id, publicKey, secretKey } of rows) {
    // Both were NOT NULL before 0020, and are cleared together.
    if (publicKey === null || secretKey === null) continue
    const updated = await db
      .update(projects)
      .set({ ...storeProjectKeys(secret, id, { publicKey, secretKey }), publicKey: null, secretKey: null })
      .where(and(eq(projects.id, id), eq(projects.secretKey, secretKey)))
      .returning({ id: projects.id })
    sealed += updated.length
  }
  return sealed
}

/**
 * Refuses to start with a SECRET the stored keys were not sealed with: every key would then be refused and every
 * project listing would fail. One row tells, since all are sealed with the one SECRET.
 */
export async function checkKeysOpen(db: Database, secret: string): Promise<void> {
  const [row] = await db
    .select({ id: projects.id, publicKeySealed: projects.publicKeySealed, secretKeySealed: projects.secretKeySealed })
    .from(projects)
    .where(isNotNull(projects.secretKeySealed))
    .limit(1)
  if (!row) return
  try {
    revealProjectKeys(secret, row.id, row)
  } catch {
    throw new Error(
      'SECRET is not the one the projects’ API keys were sealed with: start with the SECRET they were made with (DATA_DIR/secret, or the SECRET setting). See docs/decisions/0019-api-key-storage.md',
    )
  }
}
