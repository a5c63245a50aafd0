import type { Config } from '../../../config.js'
import { createSesMailFrom, type SetSesMailFrom } from '../../../mail/aws/ses-mail-from.js'
import { createResolver, type DnsResolver } from '../../../mail/dns.js'
import { createHttpsProbe, type HttpsProbe } from './tracking.js'

/** What an audit talks to: DNS, the tracking host over https, and SES (for the MAIL FROM domain). */
export type AuditDeps = {
  /** Must not cache: a record the owner just published is looked for now. */
  resolver: DnsResolver
  probeHttps: HttpsProbe
  setSesMailFrom: SetSesMailFrom | undefined
  /** How long the SPF walk may take in all, whatever the record does. */
  spfBudgetMs: number
}

export type AuditDepsOptions = {
  resolver?: DnsResolver
  /** A certificate authority to trust for the tracking host (tests' own). */
  trackingCa?: string
  setSesMailFrom?: SetSesMailFrom
}

const spfBudgetMs = 6_000

export function createAuditDeps(
  config: Pick<Config, 'dnsServers' | 'mailTransport' | 'sesRegion'>,
  options: AuditDepsOptions = {},
): AuditDeps {
  const resolver = options.resolver ?? createResolver(config, { cacheTtlMs: 0 })
  return {
    resolver,
    probeHttps: createHttpsProbe(resolver, options.trackingCa ? { ca: options.trackingCa } : {}),
    setSesMailFrom:
      options.setSesMailFrom ??
      (config.mailTransport === 'ses' ? createSesMailFrom({ region: config.sesRegion }) : undefined),
    spfBudgetMs,
  }
}
