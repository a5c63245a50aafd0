import { and, eq } from 'drizzle-orm'
import type { Executor } from '../../../db/client.js'
import { domains } from '../../../db/schema/index.js'
import { domainOf } from '../../../mail/address.js'
import type { Finding } from './schemas.js'

/**
 * The error findings of the latest stored audit of `domain` (or of an address's domain) in the project: what the
 * pre-send check refuses to send with. Empty when the domain is not the project's or has not been audited yet.
 */
export async function domainAuditErrors(db: Executor, projectId: string, domain: string): Promise<Finding[]> {
  const [row] = await db
    .select({ audit: domains.audit })
    .from(domains)
    .where(and(eq(domains.projectId, projectId), eq(domains.domain, domainOf(domain))))
  return (row?.audit?.findings ?? []).filter((item) => item.severity === 'error')
}
