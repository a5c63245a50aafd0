import { z } from 'zod'
import type { StoredAudit } from '../../../db/schema/index.js'

const findingSeverity = z.enum(['error', 'warning', 'info', 'ok'])
export type FindingSeverity = z.infer<typeof findingSeverity>

/** A DNS record as the owner publishes it: `priority` only for MX. */
const findingRecord = z.object({
  type: z.enum(['TXT', 'MX']),
  name: z.string(),
  value: z.string(),
  priority: z.number().int().optional(),
})
export type FindingRecord = z.infer<typeof findingRecord>

const finding = z.object({
  /** Stable, e.g. `spf_too_many_lookups`; the dashboard and the pre-send check key on it. */
  code: z.string(),
  severity: findingSeverity,
  /** What a receiver will make of it, in plain words. */
  reason: z.string(),
  /** The record to publish (or to publish instead of the current one) to fix it. */
  record: findingRecord.optional(),
})
export type Finding = z.infer<typeof finding>

export const auditView = z.object({ checkedAt: z.string(), findings: z.array(finding) })
export type AuditView = z.infer<typeof auditView>

export const domainAuditView = auditView.extend({ domainId: z.uuid(), domain: z.string() })

// The column's type (src/db/schema/domains.ts) and this schema describe the same stored audit.
auditView satisfies z.ZodType<StoredAudit>
