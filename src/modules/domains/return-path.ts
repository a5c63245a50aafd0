import { and, eq } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { domains } from '../../db/schema/index.js'
import { AppError, validationError } from '../../errors.js'
import type { AuditDeps } from './audit/deps.js'
import type { DomainView, ReturnPathUpdate } from './schemas.js'
import { getDomainRow } from './service.js'
import { type RecordConfig, toDomainView } from './view.js'

/**
 * Sets the domain's custom MAIL FROM domain (or removes it with null). A new one is used once a check finds its MX
 * and SPF records. Removing one that SES uses tells SES first, so SES never keeps a MAIL FROM we no longer audit.
 */
export async function setReturnPath(
  db: Executor,
  config: RecordConfig,
  deps: Pick<AuditDeps, 'setSesMailFrom'>,
  projectId: string,
  domainId: string,
  input: ReturnPathUpdate,
): Promise<DomainView> {
  const row = await getDomainRow(db, projectId, domainId)
  const returnPath = input.domain
  // Relaxed DMARC alignment needs the same organisational domain; a subdomain of the sender domain always has it.
  if (returnPath !== null && !returnPath.endsWith(`.${row.domain}`)) {
    throw validationError([
      {
        field: 'domain',
        code: 'custom',
        message: `Must be a subdomain of ${row.domain}, such as bounce.${row.domain}`,
      },
    ])
  }
  if (returnPath === row.returnPathDomain) return toDomainView(config, row)
  if (returnPath === null && row.returnPathVerifiedAt !== null && config.mailTransport === 'ses') {
    await deps.setSesMailFrom?.(row.domain, undefined).catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err)
      throw new AppError('SERVICE_UNAVAILABLE', `SES did not remove the MAIL FROM domain of ${row.domain}: ${reason}`)
    })
  }
  const [updated] = await db
    .update(domains)
    .set({ returnPathDomain: returnPath, returnPathVerifiedAt: null })
    .where(and(eq(domains.id, row.id), eq(domains.projectId, projectId)))
    .returning()
  return toDomainView(config, updated ?? row)
}
