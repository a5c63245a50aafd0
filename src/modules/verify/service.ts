import { createRequire } from 'node:module'
import type { DnsResolver } from '../../mail/dns.js'
import { isAliasDomain, isDisposableDomain, isFreeProviderDomain } from './lists.js'
import type { VerificationResult } from './schemas.js'

type DnsFindings = Pick<VerificationResult, 'domainExists' | 'hasMxRecords' | 'hasWebsite'> & { failed: boolean }

/**
 * NS answers whether the domain is delegated; a name without its own NS (NODATA, e.g. a subdomain) still
 * exists. A null MX ("." per RFC 7505) says the domain takes no mail.
 */
async function lookUpDomain(resolver: DnsResolver, domain: string): Promise<DnsFindings> {
  const [ns, mx, a, aaaa] = await Promise.all([
    resolver.ns(domain),
    resolver.mx(domain),
    resolver.a(domain),
    resolver.aaaa(domain),
  ])
  const hasMxRecords = mx.records.some((record) => record.exchange !== '' && record.exchange !== '.')
  const hasWebsite = a.outcome === 'found' || aaaa.outcome === 'found'
  return {
    domainExists: ns.outcome === 'found' || ns.outcome === 'empty' || hasMxRecords || hasWebsite,
    hasMxRecords,
    hasWebsite,
    failed: [ns, mx].some((answer) => answer.outcome === 'failed'),
  }
}

const require = createRequire(import.meta.url)

/** Loaded on the first verification, as the domain lists are: a server that never verifies does not carry it. */
function spellChecker(): typeof import('@zootools/email-spell-checker') {
  return require('@zootools/email-spell-checker')
}

/**
 * The spell checker also "corrects" unfamiliar TLDs (shop.test → shop.de) and some real providers
 * (gmx.net → cox.net): only a near miss of a mail provider, typed on a domain that is not a provider
 * itself, counts as a typo.
 */
function typoCorrection(local: string, domain: string, isProvider: boolean): string | undefined {
  if (!domain || isProvider || domain.length > 253) return undefined
  const suggestion = spellChecker().run({ email: `${local}@${domain}` })
  if (!suggestion || suggestion.domain === domain || !isFreeProviderDomain(suggestion.domain)) return undefined
  return `${local}@${suggestion.domain}`
}

/**
 * DNS (NS, MX, A/AAAA), disposable, alias, free provider, plus-addressing and typo checks of a well-formed address
 * (`verifyRequest` refuses any other).
 */
export async function verifyEmail(resolver: DnsResolver, email: string): Promise<VerificationResult> {
  const at = email.lastIndexOf('@')
  const local = email.slice(0, at)
  const domain = email.slice(at + 1).toLowerCase()
  const dns = await lookUpDomain(resolver, domain)
  const isAlias = isAliasDomain(domain)
  const isDisposable = isDisposableDomain(domain)
  const isPersonalEmail = !isDisposable && isFreeProviderDomain(domain)
  const isPlusAddressed = local.includes('+')
  const suggestedEmail = typoCorrection(local, domain, isPersonalEmail)

  const reasons: string[] = []
  if (dns.failed) reasons.push('DNS lookup failed; the domain could not be checked')
  if (!dns.failed && !dns.domainExists) reasons.push('Domain does not exist')
  if (!dns.failed && dns.domainExists && !dns.hasMxRecords) reasons.push('Domain has no MX records')
  if (isDisposable) reasons.push('Disposable email address')
  if (isAlias) reasons.push('Email forwarding or alias service')
  if (suggestedEmail) reasons.push(`Possible typo: did you mean ${suggestedEmail}?`)
  if (isPlusAddressed) reasons.push('Plus-addressed email')
  if (isPersonalEmail) reasons.push('Free or personal email provider')

  return {
    email,
    valid: dns.domainExists && dns.hasMxRecords && !isDisposable,
    isDisposable,
    isAlias,
    isTypo: suggestedEmail !== undefined,
    isPlusAddressed,
    isPersonalEmail,
    domainExists: dns.domainExists,
    hasWebsite: dns.hasWebsite,
    hasMxRecords: dns.hasMxRecords,
    ...(suggestedEmail ? { suggestedEmail } : {}),
    reasons,
  }
}
