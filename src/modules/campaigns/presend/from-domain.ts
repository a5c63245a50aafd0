import { and, eq } from 'drizzle-orm'
import type { Executor } from '../../../db/client.js'
import { domains } from '../../../db/schema/index.js'

/**
 * One finding of a sender domain's audit, in the audit's own shape (`Finding` of `src/modules/domains/audit/`,
 * stored in `domains.audit`): a code, its weight, a plain-language reason and the record to publish, if any.
 */
export type DomainFinding = { code: string; severity: 'error' | 'warning'; reason: string; record?: unknown }

/**
 * The errors a receiver would hold against mail from `domain` in this project. The domain audit replaces this
 * body with `return domainAuditErrors(db, projectId, domain)`; until then the domain's verification state answers:
 * a domain that is not registered, or whose DKIM key is not found in DNS, is an error.
 */
export async function fromDomainErrors(db: Executor, projectId: string, domain: string): Promise<DomainFinding[]> {
  return verificationErrors(db, projectId, domain)
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
        severity: 'error',
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
      severity: 'error',
      reason: `${domain} is not verified: ${missing} not found in DNS yet. Publish the records shown on its domain page, then check it again.`,
    },
  ]
}
