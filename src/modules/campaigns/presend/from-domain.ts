import { and, eq } from 'drizzle-orm'
import type { Executor } from '../../../db/client.js'
import { domains } from '../../../db/schema/index.js'
import type { Finding } from '../../domains/audit/schemas.js'
import { domainAuditErrors } from '../../domains/audit/service.js'

/** A sender domain's problem, in the domain audit's shape: a code and a plain-language reason. */
type DomainFinding = Pick<Finding, 'code' | 'reason'>

/**
 * The errors a receiver would hold against mail from `domain` in this project: the errors of its latest audit
 * (they name the record to fix), else, for a domain not yet audited, its verification state: a domain that is not
 * registered, or not verified, is an error.
 */
export async function fromDomainErrors(db: Executor, projectId: string, domain: string): Promise<DomainFinding[]> {
  const audited = await domainAuditErrors(db, projectId, domain)
  return audited.length > 0 ? audited : verificationErrors(db, projectId, domain)
}

async function verificationErrors(db: Executor, projectId: string, domain: string): Promise<DomainFinding[]> {
  const [row] = await db
    .select({ status: domains.status, recordStatus: domains.recordStatus })
    .from(domains)
    .where(and(eq(domains.projectId, projectId), eq(domains.domain, domain)))
  if (!row) {
    return [
      {
        code: 'domain_not_registered',
        reason: `${domain} is not a sender domain of this project: add it under Domains and publish its DNS records.`,
      },
    ]
  }
  if (row.status === 'VERIFIED') return []
  const pending = Object.entries(row.recordStatus)
    .filter(([, status]) => status !== 'verified')
    .map(([purpose]) => purpose)
  const missing =
    pending.length === 0
      ? 'its DNS records are'
      : `its ${pending.join(', ')} record${pending.length === 1 ? ' is' : 's are'}`
  return [
    {
      code: 'domain_unverified',
      reason: `${domain} is not verified: ${missing} not found in DNS yet. Publish the records shown on its domain page, then check it again.`,
    },
  ]
}
