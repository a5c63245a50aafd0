import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import type { inboundSource } from '../../db/schema/index.js'

/** Whether any project has verified this domain (one indexed probe per RCPT TO). */
export async function isVerifiedDomain(db: Executor, domain: string): Promise<boolean> {
  const result = await db.execute(sql`
    SELECT 1 FROM domains WHERE domain = ${domain} AND status = 'VERIFIED' LIMIT 1`)
  return result.rows.length > 0
}

export type DomainOwner = { projectId: string; domain: string }

/** Every (project, domain) pair among these domains whose domain that project has verified. */
export async function findVerifiedDomainOwners(db: Executor, domains: readonly string[]): Promise<DomainOwner[]> {
  if (domains.length === 0) return []
  const result = await db.execute<{ project_id: string; domain: string }>(sql`
    SELECT project_id, domain FROM domains
    WHERE domain = ANY(${sql.param(domains)}::text[]) AND status = 'VERIFIED'
    ORDER BY project_id`)
  return result.rows.map((row) => ({ projectId: row.project_id, domain: row.domain }))
}

/**
 * Records the message once per project in one statement; returns the projects it was new for. A concurrent
 * delivery of the same message waits on the unique key and then finds it taken.
 */
export async function claimInboundEmails(
  db: Executor,
  projectIds: readonly string[],
  source: (typeof inboundSource)[number],
  messageId: string,
): Promise<Set<string>> {
  if (projectIds.length === 0) return new Set()
  const result = await db.execute<{ project_id: string }>(sql`
    INSERT INTO inbound_emails (project_id, source, message_id)
    SELECT project_id, ${source}, ${messageId} FROM unnest(${sql.param(projectIds)}::uuid[]) AS project_id
    ON CONFLICT (project_id, source, message_id) DO NOTHING
    RETURNING project_id`)
  return new Set(result.rows.map((row) => row.project_id))
}
