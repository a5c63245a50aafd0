import type { DNSResolver } from 'mailauth'
import type { DnsAnswer, DnsResolver } from '../dns.js'

type NodeDnsError = Error & { code: string }

function dnsError(code: string, name: string, rrtype: string): NodeDnsError {
  return Object.assign(new Error(`${rrtype} ${name}: ${code}`), { code })
}

/**
 * mailauth looks names up through a `dns.promises.resolve`-shaped function and tells "no such name / no
 * records" (ENOTFOUND, ENODATA: SPF none, no DKIM key) from "could not ask" (anything else: temperror) by the
 * error code. This adapter answers from our resolver, so DNS_SERVERS, the timeout and the cache apply.
 */
export function mailauthResolver(resolver: DnsResolver): DNSResolver {
  return async (name, rrtype) => {
    switch (rrtype.toUpperCase()) {
      // One string per record: mailauth joins a record's character-strings itself, ours come joined.
      case 'TXT':
        return unwrap(await resolver.txt(name), name, rrtype).map((record) => [record])
      case 'A':
        return unwrap(await resolver.a(name), name, rrtype)
      case 'AAAA':
        return unwrap(await resolver.aaaa(name), name, rrtype)
      case 'NS':
        return unwrap(await resolver.ns(name), name, rrtype)
      case 'MX':
        // mailauth reads MX answers as node's {exchange, priority} objects, whatever its declared type says.
        return unwrap(await resolver.mx(name), name, rrtype) as unknown as string[]
      default:
        // PTR (SPF's deprecated ptr mechanism) is not offered by our resolver: a DNS error there only makes
        // that one mechanism not match (RFC 7208 5.5), which is the right outcome for an unanswered lookup.
        throw dnsError('ENOTIMP', name, rrtype)
    }
  }
}

function unwrap<T>(answer: DnsAnswer<T>, name: string, rrtype: string): T[] {
  switch (answer.outcome) {
    case 'found':
      return answer.records
    case 'empty':
      throw dnsError('ENODATA', name, rrtype)
    case 'nxdomain':
      throw dnsError('ENOTFOUND', name, rrtype)
    case 'failed':
      throw dnsError('ESERVFAIL', name, rrtype)
  }
}
