import type { DnsResolver } from '../../../mail/dns.js'
import { finding } from './codes.js'
import type { Finding } from './schemas.js'

export type BounceMxOptions = {
  envelopeDomain: string
  /** The one host bounces must reach (SES's feedback endpoint); any MX will do otherwise. */
  requiredHost: string | undefined
  /** The host to recommend when there is no MX; undefined when we cannot know it. */
  suggestedHost: string | undefined
}

const normalize = (host: string) => host.toLowerCase().replace(/\.$/, '')

/** Whether bounces to the envelope (MAIL FROM) domain have somewhere to go. */
export async function auditBounceMx(
  resolver: DnsResolver,
  options: BounceMxOptions,
): Promise<{ finding: Finding; verdict: boolean | 'unknown' }> {
  const { envelopeDomain: domain, requiredHost } = options
  const answer = await resolver.mx(domain)
  if (answer.outcome === 'failed') {
    const reason = `The MX records of ${domain} could not be looked up (timeout or server failure).`
    return { finding: finding('bounce_mx_lookup_failed', reason), verdict: 'unknown' }
  }
  const suggested = requiredHost ?? options.suggestedHost
  const record = suggested ? { type: 'MX' as const, name: domain, value: suggested, priority: 10 } : undefined
  const hosts = answer.records.map((mx) => normalize(mx.exchange))
  if (hosts.length === 0) {
    const where = suggested ? '' : ' Point it at the mail server that should receive your bounces.'
    const reason = `${domain}, the envelope (MAIL FROM) domain of your mail, has no MX record: bounces have nowhere to go, and some receivers refuse mail whose MAIL FROM domain cannot receive.${where}`
    return { finding: finding('bounce_mx_missing', reason, record), verdict: false }
  }
  if (requiredHost !== undefined && !hosts.includes(normalize(requiredHost))) {
    const reason = `The MX of ${domain} points to ${hosts.join(', ')}, not to ${requiredHost}: SES cannot receive the bounces and complaints for it, and falls back to its own MAIL FROM.`
    return { finding: finding('bounce_mx_wrong', reason, record), verdict: false }
  }
  const reason = `Bounces to ${domain} go to ${hosts.join(', ')}.`
  return { finding: finding('bounce_mx_ok', reason), verdict: true }
}
