import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { domains } from '../../db/schema/index.js'
import type { AuditDeps } from './audit/deps.js'
import { type AuditConfig, type AuditOutcome, runDomainAudit } from './audit/run.js'
import type { AuditView } from './audit/schemas.js'
import { buildDnsRecords, requiredPurposes } from './dns-records.js'
import type { DomainView } from './schemas.js'
import { getDomainRow } from './service.js'
import { checkDomainRecords, type DomainCheck } from './verification.js'
import { type DomainRow, type RecordConfig, toDomainView } from './view.js'

type CheckConfig = RecordConfig & AuditConfig

/** How a check may change the domain's status; the background re-audit of verified domains leaves it be. */
type CheckMode = { keepVerified: boolean }

/**
 * Records the outcome of a check and its audit. A failed lookup leaves the previous answer in place, so a DNS outage
 * neither verifies a domain nor takes a verified one away; a definitive "record missing" does.
 */
async function saveCheck(
  db: Executor,
  config: RecordConfig,
  row: DomainRow,
  check: DomainCheck,
  outcome: AuditOutcome,
  mode: CheckMode,
): Promise<DomainRow> {
  const recordStatus = { ...row.recordStatus }
  for (const [purpose, result] of Object.entries(check)) {
    if (result !== 'unknown') recordStatus[purpose] = result
  }
  const required = requiredPurposes(buildDnsRecords(config, row))
  const decided = required.every((purpose) => check[purpose] !== 'unknown')
  const verified = required.every((purpose) => recordStatus[purpose] === 'verified')
  const kept = mode.keepVerified && row.status === 'VERIFIED'
  const status = decided && !kept ? (verified ? 'VERIFIED' : 'PENDING') : row.status
  const now = new Date()
  const returnPathVerifiedAt =
    outcome.returnPathVerified === 'unknown'
      ? row.returnPathVerifiedAt
      : outcome.returnPathVerified
        ? (row.returnPathVerifiedAt ?? now)
        : null
  const [updated] = await db
    .update(domains)
    .set({
      recordStatus,
      status,
      lastCheckedAt: now,
      verifiedAt: status === 'PENDING' ? null : row.status === 'VERIFIED' ? row.verifiedAt : now,
      audit: outcome.audit,
      // The return path may have been changed while the check ran; what was checked was the one read before.
      returnPathVerifiedAt: sql`CASE WHEN ${domains.returnPathDomain} IS NOT DISTINCT FROM ${row.returnPathDomain}
        THEN ${returnPathVerifiedAt}::timestamptz ELSE ${domains.returnPathVerifiedAt} END`,
    })
    .where(and(eq(domains.id, row.id), eq(domains.projectId, row.projectId)))
    .returning()
  return updated ?? row
}

async function checkDomain(
  db: Executor,
  config: CheckConfig,
  deps: AuditDeps,
  row: DomainRow,
  mode: CheckMode,
): Promise<DomainRow> {
  const [check, outcome] = await Promise.all([
    checkDomainRecords(deps.resolver, buildDnsRecords(config, row)),
    runDomainAudit(deps, config, row),
  ])
  return saveCheck(db, config, row, check, outcome, mode)
}

/** `GET /domains/:id/verify`: checks the records and audits the domain now. */
export async function verifyDomain(
  db: Executor,
  config: CheckConfig,
  deps: AuditDeps,
  projectId: string,
  domainId: string,
): Promise<DomainView> {
  const row = await getDomainRow(db, projectId, domainId)
  return toDomainView(config, await checkDomain(db, config, deps, row, { keepVerified: false }))
}

/** `GET /domains/:id/audit`: the same check, answered with its findings. */
export async function auditDomain(
  db: Executor,
  config: CheckConfig,
  deps: AuditDeps,
  projectId: string,
  domainId: string,
): Promise<AuditView & { domainId: string; domain: string }> {
  const row = await getDomainRow(db, projectId, domainId)
  const checked = await checkDomain(db, config, deps, row, { keepVerified: false })
  const audit = checked.audit ?? { checkedAt: new Date().toISOString(), findings: [] }
  return { domainId: checked.id, domain: checked.domain, ...audit }
}

const recheckBatchSize = 500
const recheckConcurrency = 8
/** A verified domain is audited again this often, so a record removed later shows up before the next send. */
const reauditAfterMs = 24 * 3_600_000

/**
 * The background check: pending domains, return-path domains waiting for their records, and verified domains whose
 * audit is a day old, least recently checked first. The last kind keep their status (a receiver's verdict on a
 * removed record shows in the audit, which the pre-send check reads), as before this job never un-verified.
 */
export async function verifyPendingDomains(
  db: Executor,
  config: CheckConfig,
  deps: AuditDeps,
): Promise<{ checked: number; verified: number }> {
  const due = await db
    .select()
    .from(domains)
    .where(
      or(
        eq(domains.status, 'PENDING'),
        and(isNotNull(domains.returnPathDomain), isNull(domains.returnPathVerifiedAt)),
        isNull(domains.lastCheckedAt),
        lt(domains.lastCheckedAt, new Date(Date.now() - reauditAfterMs)),
      ),
    )
    .orderBy(sql`${domains.lastCheckedAt} ASC NULLS FIRST`)
    .limit(recheckBatchSize)
  let verified = 0
  for (let start = 0; start < due.length; start += recheckConcurrency) {
    const batch = due.slice(start, start + recheckConcurrency)
    const results = await Promise.all(batch.map((row) => checkDomain(db, config, deps, row, { keepVerified: true })))
    verified += results.filter((row, index) => row.status === 'VERIFIED' && batch[index]?.status === 'PENDING').length
  }
  return { checked: due.length, verified }
}
