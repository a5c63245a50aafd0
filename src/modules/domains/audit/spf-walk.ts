import ipaddr from 'ipaddr.js'
import type { DnsResolver } from '../../../mail/dns.js'
import { hasMacro, isSpfRecord, lookupMechanisms, parseSpfRecord, type SpfMechanism } from './spf-record.js'

/** Who sends for the domain, as the SPF record must name it. */
export type SpfSender =
  | { kind: 'ses' }
  /** An SMTP relay: its host as configured, and the addresses it resolves to (the host itself for an IP). */
  | { kind: 'relay'; host: string; addresses: string[] }
  /** The capture transport: nothing leaves the machine, so no sender to name. */
  | { kind: 'none' }

/** RFC 7208 §4.6.4: more lookups than this make the record `permerror` at every receiver. */
export const spfLookupLimit = 10
/** RFC 7208 §4.6.4 also bounds the hosts an `mx` mechanism looks up. */
const mxHostLimit = 10

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number]

export type SpfWalk = {
  lookups: number
  problems: string[]
  /** The chain of names that comes back to one already being evaluated, e.g. `[a.com, b.com, a.com]`. */
  loop: string[] | undefined
  /** The top record's term that leads into the loop, dropped from the recommended record. */
  loopTerm: string | undefined
  tooMany: boolean
  /** The name whose lookup failed or came after the deadline; the walk stopped there. */
  failedAt: string | undefined
  /** Whether a passing term names the sender; undefined when the sender is `none`. */
  authorizes(sender: SpfSender): boolean | undefined
}

type WalkState = {
  resolver: DnsResolver
  deadline: number
  resolveAddresses: boolean
  lookups: number
  problems: string[]
  loop: string[] | undefined
  loopTerm: string | undefined
  tooMany: boolean
  failedAt: string | undefined
  /** include: and redirect= targets reached through passing terms: a provider's whole tree. */
  passTrees: Set<string>
  /** a: and mx: targets reached through passing terms: those exact hosts. */
  passHosts: Set<string>
  passNetworks: Network[]
  passAll: boolean
}

const stopped = (state: WalkState) => state.tooMany || state.loop !== undefined || state.failedAt !== undefined

/** Counts one DNS-querying term; false once past the limit, where a receiver stops with `permerror`. */
function count(state: WalkState): boolean {
  state.lookups++
  if (state.lookups > spfLookupLimit) state.tooMany = true
  return !state.tooMany
}

function timedOut(state: WalkState, name: string): boolean {
  if (Date.now() <= state.deadline) return false
  state.failedAt = name
  return true
}

/** The one SPF record at `name`; undefined when it has none (a `permerror` for include and redirect). */
async function fetchSpf(state: WalkState, name: string, via: string): Promise<string | undefined> {
  if (timedOut(state, name)) return undefined
  const answer = await state.resolver.txt(name)
  if (answer.outcome === 'failed') {
    state.failedAt = name
    return undefined
  }
  const records = answer.records.filter(isSpfRecord)
  if (records.length === 0) state.problems.push(`${via} finds no SPF record at ${name}`)
  if (records.length > 1) state.problems.push(`${name} has ${records.length} SPF records; a receiver accepts only one`)
  return records[0]
}

function addNetwork(state: WalkState, address: string, mechanism: SpfMechanism): void {
  const parsed = ipaddr.parse(address)
  const prefix = parsed.kind() === 'ipv4' ? (mechanism.cidr4 ?? 32) : (mechanism.cidr6 ?? 128)
  state.passNetworks.push([parsed, prefix])
}

async function addressesOf(state: WalkState, host: string): Promise<string[] | undefined> {
  if (timedOut(state, host)) return undefined
  const [v4, v6] = await Promise.all([state.resolver.a(host), state.resolver.aaaa(host)])
  if (v4.outcome === 'failed' && v6.outcome === 'failed') {
    state.failedAt = host
    return undefined
  }
  return [...v4.records, ...v6.records]
}

/** The addresses an `a` or `mx` term matches, so a relay named by address is recognised. */
async function collectAddresses(state: WalkState, mechanism: SpfMechanism, target: string): Promise<void> {
  let hosts = [target]
  if (mechanism.name === 'mx') {
    if (timedOut(state, target)) return
    const mx = await state.resolver.mx(target)
    if (mx.outcome === 'failed') {
      state.failedAt = target
      return
    }
    hosts = mx.records.slice(0, mxHostLimit).map((record) => record.exchange)
  }
  for (const host of hosts) {
    const addresses = await addressesOf(state, host)
    if (addresses === undefined) return
    for (const address of addresses) addNetwork(state, address, mechanism)
  }
}

async function follow(
  state: WalkState,
  target: string,
  chain: readonly string[],
  passing: boolean,
  topTerm: string,
  via: string,
): Promise<void> {
  if (chain.includes(target)) {
    state.loop = [...chain, target]
    state.loopTerm = topTerm
    return
  }
  const record = await fetchSpf(state, target, via)
  if (record !== undefined) await walkRecord(state, target, record, [...chain, target], passing, topTerm)
}

async function walkMechanism(
  state: WalkState,
  domain: string,
  mechanism: SpfMechanism,
  chain: readonly string[],
  passing: boolean,
  topTerm: string,
): Promise<void> {
  // A term's qualifier decides what its match means; nested terms only authorise through passing ones.
  const pass = passing && mechanism.qualifier === '+'
  const target = mechanism.target ?? domain
  switch (mechanism.name) {
    case 'all':
      if (pass) state.passAll = true
      return
    case 'ip4':
    case 'ip6':
      if (pass) addNetwork(state, target, mechanism)
      return
    case 'include':
      if (pass) state.passTrees.add(target)
      if (!hasMacro(target)) await follow(state, target, chain, pass, topTerm, `include:${target}`)
      return
    case 'a':
    case 'mx':
      if (pass) state.passHosts.add(target)
      if (pass && state.resolveAddresses && !hasMacro(target)) await collectAddresses(state, mechanism, target)
      return
    default:
      // ptr and exists depend on the connecting address; they only count.
      return
  }
}

async function walkRecord(
  state: WalkState,
  domain: string,
  txt: string,
  chain: readonly string[],
  passing: boolean,
  topTerm: string | undefined,
): Promise<void> {
  const record = parseSpfRecord(txt)
  const nested = chain.length > 1
  for (const problem of record.problems) state.problems.push(nested ? `${domain}: ${problem}` : problem)
  for (const mechanism of record.mechanisms) {
    if (stopped(state)) return
    if (lookupMechanisms.has(mechanism.name) && !count(state)) return
    await walkMechanism(state, domain, mechanism, chain, passing, topTerm ?? mechanism.term)
  }
  if (record.redirect === undefined || stopped(state) || !count(state)) return
  if (passing) state.passTrees.add(record.redirect)
  const term = topTerm ?? `redirect=${record.redirect}`
  if (!hasMacro(record.redirect)) {
    await follow(state, record.redirect, chain, passing, term, `redirect=${record.redirect}`)
  }
}

function inTree(host: string, tree: string): boolean {
  return host === tree || host.endsWith(`.${tree}`)
}

/** The registrable-looking parent of a host: `smtp.mailgun.org` → `mailgun.org`, so `include:mailgun.org` names it. */
function parentOf(host: string): string | undefined {
  const labels = host.split('.')
  return labels.length > 2 ? labels.slice(1).join('.') : undefined
}

function matchesNetwork(address: string, networks: readonly Network[]): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.parse(address)
  return networks.some(([network, prefix]) => network.kind() === parsed.kind() && parsed.match(network, prefix))
}

function authorizes(state: WalkState, sender: SpfSender): boolean | undefined {
  if (sender.kind === 'none') return undefined
  if (state.passAll) return true
  if (sender.kind === 'ses') return [...state.passTrees].some((tree) => inTree('amazonses.com', tree))
  const host = sender.host.toLowerCase()
  const parent = parentOf(host)
  const named =
    state.passHosts.has(host) ||
    [...state.passTrees].some((tree) => inTree(host, tree) || (parent !== undefined && inTree(tree, parent)))
  return named || sender.addresses.some((address) => matchesNetwork(address, state.passNetworks))
}

/**
 * Evaluates `domain`'s SPF record as far as a receiver would, without a connecting address: every include and
 * redirect followed, every DNS-querying term counted. Stops at the 11th lookup, at a loop, at a failed lookup or
 * at the deadline, so a hostile record never makes it hang.
 */
export async function walkSpf(
  resolver: DnsResolver,
  domain: string,
  record: string,
  options: { deadline: number; sender: SpfSender },
): Promise<SpfWalk> {
  const state: WalkState = {
    resolver,
    deadline: options.deadline,
    resolveAddresses: options.sender.kind === 'relay' && options.sender.addresses.length > 0,
    lookups: 0,
    problems: [],
    loop: undefined,
    loopTerm: undefined,
    tooMany: false,
    failedAt: undefined,
    passTrees: new Set(),
    passHosts: new Set(),
    passNetworks: [],
    passAll: false,
  }
  await walkRecord(state, domain, record, [domain], true, undefined)
  return {
    lookups: Math.min(state.lookups, spfLookupLimit + 1),
    problems: state.problems,
    loop: state.loop,
    loopTerm: state.loopTerm,
    tooMany: state.tooMany,
    failedAt: state.failedAt,
    authorizes: (sender) => authorizes(state, sender),
  }
}
