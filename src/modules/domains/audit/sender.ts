import { isIP } from 'node:net'
import type { Config } from '../../../config.js'
import type { DnsResolver } from '../../../mail/dns.js'
import type { SpfSender } from './spf-walk.js'

type SenderConfig = Pick<Config, 'mailTransport' | 'smtpUrl'>

/** The SMTP relay's host from SMTP_URL (an IPv6 literal without its brackets); undefined without a relay. */
function relayHostOf(config: SenderConfig): string | undefined {
  if (config.mailTransport !== 'smtp' || !config.smtpUrl) return undefined
  return new URL(config.smtpUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase()
}

/** The relay's addresses are our side of the check: looked up, never counted against the domain's SPF. */
export async function spfSenderOf(resolver: DnsResolver, config: SenderConfig): Promise<SpfSender> {
  if (config.mailTransport === 'ses') return { kind: 'ses' }
  const host = relayHostOf(config)
  if (host === undefined) return { kind: 'none' }
  if (isIP(host)) return { kind: 'relay', host, addresses: [host] }
  const [v4, v6] = await Promise.all([resolver.a(host), resolver.aaaa(host)])
  return { kind: 'relay', host, addresses: [...v4.records, ...v6.records] }
}

/** The SPF term that authorises the transport's sender: SES's include, or the relay by address or name. */
export function spfMechanismOf(config: SenderConfig): string | undefined {
  if (config.mailTransport === 'ses') return 'include:amazonses.com'
  const host = relayHostOf(config)
  if (host === undefined) return undefined
  const family = isIP(host)
  return family === 4 ? `ip4:${host}` : family === 6 ? `ip6:${host}` : `a:${host}`
}
