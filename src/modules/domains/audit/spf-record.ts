import ipaddr from 'ipaddr.js'

type Qualifier = '+' | '-' | '~' | '?'
type MechanismName = 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists'

export type SpfMechanism = {
  qualifier: Qualifier
  name: MechanismName
  /** The domain-spec (include, a, mx, ptr, exists) or network (ip4, ip6), as written. */
  target: string | undefined
  /** The prefix length for ip4/ip6, and for a/mx per address family. */
  cidr4: number | undefined
  cidr6: number | undefined
  /** The term as written, so a recommended record keeps the owner's own spelling. */
  term: string
}

export type SpfRecord = {
  /** The mechanisms a receiver evaluates: those after an `all` are never reached (RFC 7208 §5.1). */
  mechanisms: SpfMechanism[]
  redirect: string | undefined
  /** Each makes a receiver's result `permerror`. */
  problems: string[]
  /** The terms after `v=spf1` that parsed, as written. */
  validTerms: string[]
}

const mechanismNames = new Set<string>(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists'])
const needsTarget = new Set<string>(['include', 'exists', 'ip4', 'ip6'])
/** Mechanisms and modifiers that make a DNS query, each counted against the limit of 10 (RFC 7208 §4.6.4). */
export const lookupMechanisms = new Set<string>(['include', 'a', 'mx', 'ptr', 'exists'])

const modifierName = /^[a-z][a-z0-9_.-]*$/i
const macro = /%\{[slodiphcrtv]\d*r?[.\-+,/_=]*\}|%%|%_|%-/gi
// A domain name whose last label has a letter; underscores appear in real records (`_spf.example.com`).
const plainDomain = /^(?=.{1,253}\.?$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z0-9-]*[a-z][a-z0-9-]*\.?$/i

export function isSpfRecord(txt: string): boolean {
  return /^v=spf1(\s|$)/i.test(txt.trim())
}

/** A domain-spec with macros is checked for macro syntax only: what it expands to depends on each message. */
export function hasMacro(spec: string): boolean {
  return spec.includes('%')
}

function validDomainSpec(spec: string): boolean {
  if (!hasMacro(spec)) return plainDomain.test(spec)
  return !spec.replace(macro, '').includes('%') && /^[\x21-\x7e]+$/.test(spec)
}

function parseCidr(text: string | undefined, max: number): number | undefined | 'bad' {
  if (text === undefined) return undefined
  if (!/^\d{1,3}$/.test(text) || Number(text) > max || (text.length > 1 && text.startsWith('0'))) return 'bad'
  return Number(text)
}

function parseMechanism(term: string): SpfMechanism | string {
  const qualifier = '+-~?'.includes(term[0] ?? '') ? (term[0] as Qualifier) : '+'
  const body = qualifier === term[0] ? term.slice(1) : term
  const nameEnd = body.search(/[:/]/)
  const name = (nameEnd < 0 ? body : body.slice(0, nameEnd)).toLowerCase()
  if (!mechanismNames.has(name)) return `"${term}" is not an SPF mechanism`
  const rest = nameEnd < 0 ? '' : body.slice(nameEnd)
  const mechanism: SpfMechanism = {
    qualifier,
    name: name as MechanismName,
    target: undefined,
    cidr4: undefined,
    cidr6: undefined,
    term,
  }
  if (name === 'all') return rest === '' ? mechanism : `"${term}": all takes no value`
  if (name === 'ip4' || name === 'ip6') return parseNetwork(mechanism, rest)
  const [spec, cidrs] = rest.startsWith(':') ? splitCidr(rest.slice(1)) : ['', rest]
  if (needsTarget.has(name) && spec === '') return `"${term}": ${name} needs a domain`
  if (spec !== '' && !validDomainSpec(spec)) return `"${term}": "${spec}" is not a domain`
  mechanism.target = spec === '' ? undefined : spec.replace(/\.$/, '').toLowerCase()
  if (cidrs === '') return mechanism
  if (name !== 'a' && name !== 'mx') return `"${term}": ${name} takes no prefix length`
  const dual = /^(?:\/(\d+))?(?:\/\/(\d+))?$/.exec(cidrs)
  const cidr4 = parseCidr(dual?.[1], 32)
  const cidr6 = parseCidr(dual?.[2], 128)
  if (!dual || cidr4 === 'bad' || cidr6 === 'bad') return `"${term}": bad prefix length`
  return { ...mechanism, cidr4, cidr6 }
}

/** `example.com/24//64` → [`example.com`, `/24//64`]; a slash cannot occur in a domain, so the first one splits. */
function splitCidr(text: string): [string, string] {
  const slash = text.indexOf('/')
  return slash < 0 ? [text, ''] : [text.slice(0, slash), text.slice(slash)]
}

function parseNetwork(mechanism: SpfMechanism, rest: string): SpfMechanism | string {
  const { term, name } = mechanism
  if (!rest.startsWith(':')) return `"${term}": ${name} needs an address`
  const [address, prefix] = rest.slice(1).split('/', 2) as [string, string | undefined]
  const v4 = name === 'ip4'
  const valid = v4 ? ipaddr.IPv4.isValidFourPartDecimal(address) : ipaddr.IPv6.isValid(address)
  const cidr = parseCidr(prefix, v4 ? 32 : 128)
  if (!valid || cidr === 'bad' || (prefix !== undefined && cidr === undefined)) {
    return `"${term}" is not a valid ${v4 ? 'IPv4' : 'IPv6'} network`
  }
  return { ...mechanism, target: address, ...(v4 ? { cidr4: cidr } : { cidr6: cidr }) }
}

/** Parses one `v=spf1` record the way a receiver does, noting every problem that makes it `permerror`. */
export function parseSpfRecord(txt: string): SpfRecord {
  const terms = txt.trim().split(/\s+/).slice(1)
  const record: SpfRecord = { mechanisms: [], redirect: undefined, problems: [], validTerms: [] }
  let reachedAll = false
  const modifiersSeen = new Set<string>()
  for (const term of terms) {
    const equals = term.indexOf('=')
    const colonOrSlash = term.search(/[:/]/)
    if (equals > 0 && (colonOrSlash < 0 || equals < colonOrSlash) && modifierName.test(term.slice(0, equals))) {
      const name = term.slice(0, equals).toLowerCase()
      const value = term.slice(equals + 1)
      if ((name === 'redirect' || name === 'exp') && modifiersSeen.has(name)) {
        record.problems.push(`${name}= appears twice`)
        continue
      }
      modifiersSeen.add(name)
      if ((name === 'redirect' || name === 'exp') && !validDomainSpec(value)) {
        record.problems.push(`"${term}": "${value}" is not a domain`)
        continue
      }
      if (name === 'redirect') record.redirect = value.replace(/\.$/, '').toLowerCase()
      record.validTerms.push(term)
      continue
    }
    const mechanism = parseMechanism(term)
    if (typeof mechanism === 'string') {
      record.problems.push(mechanism)
      continue
    }
    record.validTerms.push(term)
    if (!reachedAll) record.mechanisms.push(mechanism)
    if (mechanism.name === 'all') reachedAll = true
  }
  // With an `all`, a redirect is never followed (RFC 7208 §6.1).
  if (reachedAll) record.redirect = undefined
  return record
}

/**
 * The record to publish instead: the current one without `drop`ped terms and with `add` in front, or a new one.
 * `add` goes first so it is tried before any `all` or `redirect`.
 */
export function recommendSpf(current: string | undefined, add: string | undefined, drop: ReadonlySet<string>): string {
  if (current === undefined) return `v=spf1 ${add ?? 'a mx'} ~all`
  const dropped = new Set([...drop].map((term) => term.toLowerCase()))
  const kept = parseSpfRecord(current).validTerms.filter((term) => !dropped.has(term.toLowerCase()))
  const terms = add && !kept.some((term) => term.toLowerCase() === add.toLowerCase()) ? [add, ...kept] : kept
  const hasEnd = terms.some((term) => /^[+\-~?]?all$/i.test(term) || /^redirect=/i.test(term))
  return ['v=spf1', ...terms, ...(hasEnd ? [] : ['~all'])].join(' ')
}
