import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { projects } from '../../db/schema/index.js'
import { generateProjectKeys, storeProjectKeys } from '../projects/keys.js'

/**
 * Mailroom's own mail (verification, password reset, invitations) goes through the same outbox as a project's:
 * retries, the capture mailbox, SMTP or SES. The outbox and the emails table belong to a project, so the server
 * keeps one internal project for it, made on first use. It has no members, so no user lists or reaches it, and
 * its keys carry a `system_` prefix that the key format check refuses before any lookup.
 */
const resolved = new WeakMap<Database, string>()

/** Made on the pool, not in a caller's transaction, so a rollback there cannot leave a cached id behind. */
export async function systemProjectId(db: Database, secret: string): Promise<string> {
  const cached = resolved.get(db)
  if (cached) return cached
  const id = randomUUID()
  await db
    .insert(projects)
    .values({
      id,
      name: 'Mailroom system mail',
      system: true,
      tracking: 'DISABLED',
      ...storeProjectKeys(secret, id, generateProjectKeys('system_')),
    })
    // The partial unique index allows one system project: a concurrent first use finds the other's row.
    .onConflictDoNothing({ target: projects.system, where: sql`${projects.system}` })
  const [row] = await db.select({ id: projects.id }).from(projects).where(eq(projects.system, true))
  if (!row) throw new Error('system project missing after insert')
  resolved.set(db, row.id)
  return row.id
}
