import { z } from 'zod'
import { normalizeDomain } from '../../mail/address.js'
import { auditView } from './audit/schemas.js'

const hostname = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/

/** Lower case, punycode for IDNs, no trailing dot: the form stored and compared everywhere. */
const domainName = z
  .string()
  .max(253)
  .transform(normalizeDomain)
  .pipe(z.string().regex(hostname, 'must be a domain name such as example.com'))

export const domainCreate = z.object({
  domain: domainName,
  /** Accepted for Plunk clients, which send it; it must name the caller's own project. */
  projectId: z.uuid().optional(),
})
export type DomainCreate = z.infer<typeof domainCreate>

/** `null` stops using a custom return path. Whether it is a subdomain of the domain is the service's rule. */
export const returnPathUpdate = z.object({ domain: domainName.nullable() })
export type ReturnPathUpdate = z.infer<typeof returnPathUpdate>

export const domainIdParams = z.object({ id: z.uuid() })
/** Plunk's clients ask for `current`: the project of the key, or of the session's X-Project-Id. */
export const currentProject = 'current'
export const domainProjectParams = z.object({
  projectId: z.union([z.literal(currentProject), z.uuid({ error: 'Must be a project id (UUID) or "current"' })]),
})

const dnsRecordPurpose = z.enum(['DKIM', 'SPF', 'DMARC', 'MAIL_FROM'])
export type DnsRecordPurpose = z.infer<typeof dnsRecordPurpose>

export const dnsRecordView = z.object({
  type: z.enum(['TXT', 'MX']),
  name: z.string(),
  value: z.string(),
  priority: z.number().int().optional(),
  purpose: dnsRecordPurpose,
  /** Verification needs the required records only; the others are recommended. */
  required: z.boolean(),
  status: z.enum(['pending', 'verified']),
})
export type DnsRecordView = z.infer<typeof dnsRecordView>

export const domainView = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  domain: z.string(),
  status: z.enum(['PENDING', 'VERIFIED']),
  verified: z.boolean(),
  dkimSelector: z.string(),
  records: z.array(dnsRecordView),
  /** The custom MAIL FROM domain; `verified` once its MX and SPF records check out, and then used. */
  returnPath: z.object({ domain: z.string(), verified: z.boolean(), verifiedAt: z.date().nullable() }).nullable(),
  /** The latest audit (GET /domains/:id/audit runs one); null before the first check. */
  audit: auditView.nullable(),
  lastCheckedAt: z.date().nullable(),
  verifiedAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type DomainView = z.infer<typeof domainView>
