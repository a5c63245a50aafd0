import type { LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { Agent } from 'undici'
import type { DnsResolver } from '../../../mail/dns.js'
import { type AddressPolicy, describeRange } from './address-policy.js'
import { WebhookError } from './errors.js'

/** Per origin; webhooks from many executions to one receiver share these. */
const connectionsPerOrigin = 16
const maxOrigins = 1_000
const keepAliveTimeoutMs = 4_000
const connectTimeoutMs = 10_000

const agents = new WeakMap<DnsResolver, Map<AddressPolicy, Agent>>()

/**
 * The undici Agent for one resolver and address policy, made once and reused. Every connection it opens
 * looks its host up through `resolver` (DNS_SERVERS applies) and is made only to addresses the policy has
 * just accepted, so a name cannot pass the check with one address and connect to another (DNS rebinding).
 * Node skips lookup for IP-literal hosts: callers check those with the policy before dispatching.
 */
export function webhookAgent(resolver: DnsResolver, policy: AddressPolicy): Agent {
  let byPolicy = agents.get(resolver)
  if (!byPolicy) {
    byPolicy = new Map()
    agents.set(resolver, byPolicy)
  }
  let agent = byPolicy.get(policy)
  if (!agent) {
    agent = new Agent({
      connections: connectionsPerOrigin,
      maxOrigins,
      keepAliveTimeout: keepAliveTimeoutMs,
      connect: { timeout: connectTimeoutMs, lookup: guardedLookup(resolver, policy) },
    })
    byPolicy.set(policy, agent)
  }
  return agent
}

function guardedLookup(resolver: DnsResolver, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(resolver, policy, hostname).then(
      (addresses) => {
        const wanted = addresses.filter((entry) => !options.family || entry.family === options.family)
        const first = wanted[0]
        if (!first) {
          callback(
            new WebhookError('unresolvable_host', `webhook host ${hostname} has no address of the wanted family`),
            '',
          )
        } else if (options.all) {
          callback(null, wanted)
        } else {
          callback(null, first.address, first.family)
        }
      },
      (err: Error) => callback(err, ''),
    )
  }
}

/**
 * Every A and AAAA address of `hostname`, all accepted by the policy. One refused address refuses the host:
 * a name that points at both a public and an internal address is either misconfigured or an attack.
 */
async function checkedAddresses(
  resolver: DnsResolver,
  policy: AddressPolicy,
  hostname: string,
): Promise<LookupAddress[]> {
  const addresses = await resolveHost(resolver, hostname)
  for (const address of addresses) {
    const verdict = policy(address)
    if (!verdict.allowed) {
      throw new WebhookError(
        'blocked_address',
        `webhook host ${hostname} resolves to ${address}, not a public address (${describeRange(verdict.range)})`,
      )
    }
  }
  return addresses.map((address) => ({ address, family: isIP(address) }))
}

async function resolveHost(resolver: DnsResolver, hostname: string): Promise<string[]> {
  const name = hostname.toLowerCase().replace(/\.+$/, '')
  // RFC 6761: these names are loopback by definition, whatever a DNS server says about them.
  if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1']
  const [v4, v6] = await Promise.all([resolver.a(name), resolver.aaaa(name)])
  const addresses = [...v4.records, ...v6.records]
  if (addresses.length > 0) return addresses
  if (v4.outcome === 'failed' || v6.outcome === 'failed') {
    throw new WebhookError('unresolvable_host', `DNS lookup of webhook host ${hostname} failed`)
  }
  throw new WebhookError('unresolvable_host', `webhook host ${hostname} has no A or AAAA record`)
}
