import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/** Whether a webhook may connect to an address; `range` names why not, for the step's error. */
export type AddressVerdict = { allowed: true } | { allowed: false; range: string }

/** Decides on one IP address in canonical text form (as DNS answers and WHATWG URLs give them). */
export type AddressPolicy = (address: string) => AddressVerdict

/** Ranges WEBHOOK_ALLOW_PRIVATE opens: a self-hosted receiver on the same host, LAN or tailnet (100.64/10). */
const privateRanges = new Set(['loopback', 'private', 'carrierGradeNat', 'uniqueLocal'])

const allowed: AddressVerdict = { allowed: true }

/**
 * Public unicast only. IPv6 outside 2000::/3 is refused; addresses that carry an IPv4 address (mapped,
 * translated, NAT64 64:ff9b::/96, 6to4) are judged by that IPv4 address, since that is where packets end up.
 * Teredo and local-use NAT64 (64:ff9b:1::/48) are refused outright: where they lead cannot be read from them.
 * Link-local stays refused even with `allowPrivate`: 169.254.169.254 is the cloud metadata service.
 */
export function checkAddress(address: string, options: { allowPrivate: boolean }): AddressVerdict {
  const family = isIP(address)
  if (family === 0) return { allowed: false, range: 'not an IP address' }
  if (family === 4) return checkRange(ipaddr.IPv4.parse(address).range(), options)
  const v6 = ipaddr.IPv6.parse(address)
  const range = v6.range()
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return checkAddress(embeddedIpv4(v6.parts[6], v6.parts[7]), options)
    case 'rfc6052':
      if (!v6.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return { allowed: false, range: 'local-use NAT64' }
      return checkAddress(embeddedIpv4(v6.parts[6], v6.parts[7]), options)
    case '6to4':
      return checkAddress(embeddedIpv4(v6.parts[1], v6.parts[2]), options)
    case 'unicast':
      return v6.match(ipaddr.IPv6.parse('2000::'), 3) ? allowed : { allowed: false, range: 'reserved' }
    default:
      return checkRange(range, options)
  }
}

function checkRange(range: string, options: { allowPrivate: boolean }): AddressVerdict {
  if (range === 'unicast') return allowed
  if (options.allowPrivate && privateRanges.has(range)) return allowed
  return { allowed: false, range }
}

function embeddedIpv4(high: number | undefined, low: number | undefined): string {
  const h = high ?? 0
  const l = low ?? 0
  return `${h >> 8}.${h & 0xff}.${l >> 8}.${l & 0xff}`
}

const publicAddressPolicy: AddressPolicy = (address) => checkAddress(address, { allowPrivate: false })
const privateAddressPolicy: AddressPolicy = (address) => checkAddress(address, { allowPrivate: true })

/** The policy WEBHOOK_ALLOW_PRIVATE selects; the same function each time, so agents can be cached by it. */
export function addressPolicyFor(allowPrivate: boolean): AddressPolicy {
  return allowPrivate ? privateAddressPolicy : publicAddressPolicy
}

/** The range's name as an error message gives it: `not a public address (private network)`. */
export function describeRange(range: string): string {
  const words: Record<string, string> = {
    loopback: 'loopback',
    private: 'private network',
    carrierGradeNat: 'carrier-grade NAT',
    uniqueLocal: 'unique-local',
    linkLocal: 'link-local',
    unspecified: 'unspecified',
    broadcast: 'broadcast',
    multicast: 'multicast',
    reserved: 'reserved or documentation',
    teredo: 'Teredo',
  }
  return words[range] ?? range
}
