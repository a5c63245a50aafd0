import { index, jsonb, pgEnum, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core'
import { createdAt, updatedAt } from './columns.js'
import { projects } from './foundation.js'

export const domainStatus = pgEnum('domain_status', ['PENDING', 'VERIFIED'])

export type DnsRecordStatus = 'pending' | 'verified'

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
