import { index, jsonb, pgEnum, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core'
import { createdAt, updatedAt } from './columns.js'
import { projects } from './foundation.js'

export const domainStatus = pgEnum('domain_status', ['PENDING', 'VERIFIED'])

export type DnsRecordStatus = 'pending' | 'verified'

/** One thing a receiver will judge about a sender domain (src/modules/domains/audit). */
export type StoredAuditFinding = {
  code: string
  severity: 'error' | 'warning' | 'info' | 'ok'
  reason: string
  record?: { type: 'TXT' | 'MX'; name: string; value: string; priority?: number }
}

/** The latest audit of a domain: when it ran and what it found. */
export type StoredAudit = { checkedAt: string; findings: StoredAuditFinding[] }

/**
 * A sender domain of one project. The same domain may belong to several projects: each gets its own DKIM
 * selector and key, so verifying proves that the domain's owner published this project's key.
 */
export const domains = pgTable(
  'domains',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** Lower case, ASCII (IDNs in punycode), no trailing dot. */
    domain: text().notNull(),
    status: domainStatus().notNull().default('PENDING'),
    dkimSelector: text().notNull(),
    /** Base64 SubjectPublicKeyInfo, as published in the DKIM record. */
    dkimPublicKey: text().notNull(),
    /** PKCS#8 PEM sealed with AES-256-GCM under a key derived from the server secret; never leaves the server. */
    dkimPrivateKeySealed: text().notNull(),
    /** Outcome of the last check per record purpose (DKIM, SPF, ...). */
    recordStatus: jsonb().$type<Record<string, DnsRecordStatus>>().notNull().default({}),
    lastCheckedAt: timestamp({ withTimezone: true, mode: 'date' }),
    /** The latest audit (docs/decisions/0001); the pre-send check reads its errors. */
    audit: jsonb().$type<StoredAudit>(),
    /** The custom MAIL FROM (bounce) domain, a subdomain of `domain`; used once verified. */
    returnPathDomain: text(),
    /** When its MX and SPF records last checked out (and SES took it, with the ses transport); null: not in use. */
    returnPathVerifiedAt: timestamp({ withTimezone: true, mode: 'date' }),
    verifiedAt: timestamp({ withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    unique().on(table.projectId, table.domain),
    index().on(table.status, table.lastCheckedAt),
    // Inbound mail finds every project owning a recipient's domain.
    index().on(table.domain),
  ],
)
