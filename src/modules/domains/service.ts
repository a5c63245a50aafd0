import { randomBytes } from 'node:crypto'
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Config } from '../../config.js'
import { allOk, batcherPer } from '../../db/batcher.js'
import type { Database, Executor } from '../../db/client.js'
import { domains } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { domainOf } from '../../mail/address.js'
import { decryptPrivateKey, encryptPrivateKey, generateDkimKeyPair } from '../../mail/outbound/dkim-keys.js'
import type { DomainCreate, DomainView } from './schemas.js'
import { type DomainRow, toDomainView } from './view.js'

/** Binds a sealed key to its project and domain, so it cannot be moved to another row. */
function keyContext(projectId: string, domain: string): string {
  return `${projectId}:${domain}`
}

export async function createDomain(
  db: Executor,
  config: Config,
  projectId: string,
  input: DomainCreate,
): Promise<DomainView> {
  if (input.projectId !== undefined && input.projectId !== projectId) throw notFound('Project')
  const keys = await generateDkimKeyPair()
  const [row] = await db
    .insert(domains)
    .values({
      projectId,
      domain: input.domain,
      // Per-domain selector: a project that removes and re-adds a domain never collides with its old record.
      dkimSelector: `mr${randomBytes(5).toString('hex')}`,
      dkimPublicKey: keys.publicKey,
      dkimPrivateKeySealed: encryptPrivateKey(config.secret, keys.privateKeyPem, keyContext(projectId, input.domain)),
    })
    .onConflictDoNothing({ target: [domains.projectId, domains.domain] })
    .returning()
  if (!row) throw new AppError('CONFLICT', `Domain ${input.domain} is already added to this project`)
  return toDomainView(config, row)
}

export async function listDomains(db: Executor, config: Config, projectId: string): Promise<DomainView[]> {
  const rows = await db.select().from(domains).where(eq(domains.projectId, projectId)).orderBy(asc(domains.createdAt))
  return rows.map((row) => toDomainView(config, row))
}

export async function getDomainRow(db: Executor, projectId: string, domainId: string): Promise<DomainRow> {
  const [row] = await db
    .select()
    .from(domains)
    .where(and(eq(domains.id, domainId), eq(domains.projectId, projectId)))
  if (!row) throw notFound('Domain')
  return row
}

/** Templates, and campaigns not yet sent (or sending), whose sender address is on the domain. */
async function countSendersOnDomain(db: Executor, projectId: string, domain: string) {
  const result = await db.execute<{ templates: number; campaigns: number }>(sql`
    SELECT
      (SELECT count(*)::int FROM templates AS t
        WHERE t.project_id = ${projectId} AND lower(split_part(t."from", '@', 2)) = ${domain}) AS templates,
      (SELECT count(*)::int FROM campaigns AS c
        WHERE c.project_id = ${projectId} AND c.status IN ('DRAFT', 'SCHEDULED', 'SENDING')
          AND lower(split_part(c."from", '@', 2)) = ${domain}) AS campaigns`)
  return { templates: result.rows[0]?.templates ?? 0, campaigns: result.rows[0]?.campaigns ?? 0 }
}

export async function deleteDomain(db: Executor, projectId: string, domainId: string): Promise<void> {
  const row = await getDomainRow(db, projectId, domainId)
  const senders = await countSendersOnDomain(db, projectId, row.domain)
  if (senders.templates > 0 || senders.campaigns > 0) {
    throw new AppError(
      'CONFLICT',
      `Domain ${row.domain} is the sender of ${senders.templates} template(s) and ${senders.campaigns} unsent campaign(s)`,
      { details: senders, suggestion: 'Change the sender of those templates and campaigns first' },
    )
  }
  await db.delete(domains).where(and(eq(domains.id, row.id), eq(domains.projectId, projectId)))
}

export type SenderDomain = { id: string; domain: string; verified: boolean }

/**
 * The rule for every `from` (templates, campaigns, send): its domain must be registered to the project and
 * DNS-verified. In capture mode nothing leaves the machine, so verification is skipped, but the domain
 * must still be registered to the project.
 */
export async function assertSenderAllowed(
  db: Executor,
  config: Pick<Config, 'mailTransport'>,
  projectId: string,
  fromAddress: string,
): Promise<SenderDomain> {
  const domain = domainOf(fromAddress)
  const [row] = await findSenderDomains(db, [{ projectId, domain }])
  return senderRule(config, fromAddress, domain, row)
}

/**
 * `assertSenderAllowed` for the hot /v1/send path: the lookups of concurrent requests share one query
 * (src/db/batcher.ts). Reads the committed state through the pool, so not for use inside a transaction.
 */
export async function assertSenderAllowedBatched(
  db: Database,
  config: Pick<Config, 'mailTransport'>,
  projectId: string,
  fromAddress: string,
): Promise<SenderDomain> {
  const domain = domainOf(fromAddress)
  return senderRule(config, fromAddress, domain, await senderLookupOf(db)({ projectId, domain }))
}

type SenderKey = { projectId: string; domain: string }
export type SenderRow = { project_id: string; id: string; domain: string; status: DomainRow['status'] }

async function findSenderDomains(db: Executor, keys: readonly SenderKey[]): Promise<(SenderRow | undefined)[]> {
  const result = await db.execute<SenderRow>(sql`
    SELECT d.project_id, d.id, d.domain, d.status FROM domains d
    JOIN unnest(${sql.param(keys.map((key) => key.projectId))}::uuid[], ${sql.param(keys.map((key) => key.domain))}::text[])
      AS k(project_id, domain) ON d.project_id = k.project_id AND d.domain = k.domain`)
  const found = new Map(result.rows.map((row) => [`${row.project_id} ${row.domain}`, row]))
  return keys.map((key) => found.get(`${key.projectId} ${key.domain}`))
}

const senderLookupOf = batcherPer((db: Database) => ({
  maxSize: 256,
  maxInFlight: 2,
  run: async (keys: SenderKey[]) => allOk(await findSenderDomains(db, keys)),
}))

/** The rule itself, over the domain's row as found (undefined: not registered), for lookups made elsewhere. */
export function senderRule(
  config: Pick<Config, 'mailTransport'>,
  fromAddress: string,
  domain: string,
  row: SenderRow | undefined,
): SenderDomain {
  if (!row) {
    throw new AppError('FORBIDDEN', `Sender domain ${domain || fromAddress} is not registered to this project`, {
      suggestion: 'Add the domain with POST /domains and create its DNS records',
    })
  }
  const verified = row.status === 'VERIFIED'
  if (!verified && config.mailTransport !== 'capture') {
    throw new AppError('FORBIDDEN', `Sender domain ${domain} is not verified yet`, {
      suggestion: 'Create the DNS records returned by POST /domains, then check with GET /domains/:id/verify',
    })
  }
  return { id: row.id, domain: row.domain, verified }
}

export type SigningKey = {
  domain: string
  selector: string
  privateKeyPem: string
  /** The verified return-path domain, for the SMTP envelope sender (MAIL FROM); absent when there is none. */
  returnPathDomain?: string
}

type SigningKeyRow = {
  project_id: string
  domain: string
  selector: string
  sealed: string
  return_path: string | null
}

/**
 * The DKIM key to sign mail from `domain` (an address or a bare domain); undefined when not registered.
 * A project signs with its own domain's key. The system project (account mail) owns no domains: it signs
 * with the key of that domain verified in any project of this instance, so its From aligns for DMARC. Only a
 * verified one: publishing that project's key proves the domain's owner put it there.
 */
export async function getSigningKey(
  db: Executor,
  config: Pick<Config, 'secret'>,
  projectId: string,
  domain: string,
): Promise<SigningKey | undefined> {
  const result = await db.execute<SigningKeyRow>(sql`
    SELECT d.project_id, d.domain, d.dkim_selector AS selector, d.dkim_private_key_sealed AS sealed,
      CASE WHEN d.return_path_verified_at IS NOT NULL THEN d.return_path_domain END AS return_path
    FROM domains d JOIN projects p ON p.id = ${projectId}
    WHERE d.domain = ${domainOf(domain)} AND (d.project_id = p.id OR (p.system AND d.status = 'VERIFIED'))
    -- The most recently verified key is the likeliest to be still published.
    ORDER BY d.verified_at DESC NULLS LAST
    LIMIT 1`)
  const row = result.rows[0]
  if (!row) return undefined
  return {
    domain: row.domain,
    selector: row.selector,
    privateKeyPem: decryptPrivateKey(config.secret, row.sealed, keyContext(row.project_id, row.domain)),
    ...(row.return_path ? { returnPathDomain: row.return_path } : {}),
  }
}
