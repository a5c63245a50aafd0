import type { Config } from '../../config.js'
import type { domains } from '../../db/schema/index.js'
import { buildDnsRecords } from './dns-records.js'
import type { DomainView } from './schemas.js'

export type DomainRow = typeof domains.$inferSelect
export type RecordConfig = Pick<Config, 'mailTransport' | 'sesRegion' | 'smtpUrl'>

export function toDomainView(config: RecordConfig, row: DomainRow): DomainView {
  const records = buildDnsRecords(config, row).map((record) => ({
    ...record,
    status: row.recordStatus[record.purpose] ?? ('pending' as const),
  }))
  const returnPath = row.returnPathDomain
    ? {
        domain: row.returnPathDomain,
        verified: row.returnPathVerifiedAt !== null,
        verifiedAt: row.returnPathVerifiedAt,
      }
    : null
  return {
    id: row.id,
    projectId: row.projectId,
    domain: row.domain,
    status: row.status,
    verified: row.status === 'VERIFIED',
    dkimSelector: row.dkimSelector,
    records,
    returnPath,
    audit: row.audit ?? null,
    lastCheckedAt: row.lastCheckedAt,
    verifiedAt: row.verifiedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}
