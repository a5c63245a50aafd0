import type { Config } from '../../../config.js'
import type { StoredAudit } from '../../../db/schema/index.js'
import type { DnsResolver } from '../../../mail/dns.js'
import type { DomainKeys } from '../dns-records.js'
import { auditBounceMx } from './bounce-mx.js'
import type { AuditDeps } from './deps.js'
import { auditDkim } from './dkim.js'
import { auditDmarc } from './dmarc.js'
import { auditReturnPath, envelopeDomainOf } from './return-path.js'
import { spfMechanismOf, spfSenderOf } from './sender.js'
import { auditSpf } from './spf.js'
import { auditTracking } from './tracking.js'

export type AuditConfig = Pick<
  Config,
  'mailTransport' | 'smtpUrl' | 'sesRegion' | 'publicUrl' | 'inboundDomain' | 'inboundSmtpPort'
>

export type AuditTarget = DomainKeys & { returnPathDomain: string | null; returnPathVerifiedAt: Date | null }

/** `returnPathVerified`: whether the return-path domain is in use after this audit; `unknown` keeps what was. */
export type AuditOutcome = { audit: StoredAudit; returnPathVerified: boolean | 'unknown' }

/** Where bounces should go when there is no MX: SES's endpoint, the domain's own mail servers, or our receiver. */
async function bounceHosts(resolver: DnsResolver, config: AuditConfig, domain: string, envelopeDomain: string) {
  if (config.mailTransport === 'ses') {
    const host = `feedback-smtp.${config.sesRegion}.amazonses.com`
    return { requiredHost: host, suggestedHost: host }
  }
  if (envelopeDomain !== domain) {
    const mx = await resolver.mx(domain)
    const primary = [...mx.records].sort((left, right) => left.priority - right.priority)[0]
    return { requiredHost: undefined, suggestedHost: primary?.exchange.replace(/\.$/, '') }
  }
  const receiver = config.inboundSmtpPort !== undefined ? config.inboundDomain : undefined
  return { requiredHost: undefined, suggestedHost: receiver }
}

function both(left: boolean | 'unknown', right: boolean | 'unknown'): boolean | 'unknown' {
  if (left === false || right === false) return false
  return left === 'unknown' || right === 'unknown' ? 'unknown' : true
}

/**
 * What a receiver will judge about mail from `target.domain`: DKIM, SPF at the envelope domain, DMARC, the bounce MX,
 * the return-path domain and the tracking host. Every lookup is bounded in time and number, so it always ends.
 * With SES, a return-path domain whose records check out for the first time is handed to SES here.
 */
export async function runDomainAudit(deps: AuditDeps, config: AuditConfig, target: AuditTarget): Promise<AuditOutcome> {
  const { resolver } = deps
  const deadline = Date.now() + deps.spfBudgetMs
  const envelopeDomain = envelopeDomainOf(config.mailTransport, target.domain, target.returnPathDomain)
  const [sender, hosts] = await Promise.all([
    spfSenderOf(resolver, config),
    bounceHosts(resolver, config, target.domain, envelopeDomain),
  ])
  const [dkim, spf, dmarc, mx, tracking] = await Promise.all([
    auditDkim(resolver, target),
    auditSpf(resolver, { envelopeDomain, sender, mechanism: spfMechanismOf(config), deadline }),
    auditDmarc(resolver, target.domain),
    auditBounceMx(resolver, { envelopeDomain, ...hosts }),
    auditTracking(config.publicUrl, deps.probeHttps),
  ])
  const ready = both(spf.verdict, mx.verdict)
  let sesError: string | undefined
  const firstUse = target.returnPathDomain !== null && ready === true && target.returnPathVerifiedAt === null
  if (firstUse && config.mailTransport === 'ses') {
    sesError = await applySesMailFrom(deps, target.domain, target.returnPathDomain ?? undefined)
  }
  const returnPath = auditReturnPath({
    transport: config.mailTransport,
    domain: target.domain,
    returnPathDomain: target.returnPathDomain,
    ready,
    spfAlignment: dmarc.spfAlignment,
    sesError,
  })
  const findings = [dkim, ...spf.findings, ...dmarc.findings, mx.finding, ...returnPath.findings, tracking]
  return { audit: { checkedAt: new Date().toISOString(), findings }, returnPathVerified: returnPath.verified }
}

async function applySesMailFrom(deps: AuditDeps, domain: string, returnPath: string | undefined) {
  if (!deps.setSesMailFrom) return 'no SES client is configured'
  try {
    await deps.setSesMailFrom(domain, returnPath)
    return undefined
  } catch (err) {
    return err instanceof Error ? err.message : String(err)
  }
}
