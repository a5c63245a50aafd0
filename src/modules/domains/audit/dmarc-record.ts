export type DmarcPolicy = 'none' | 'quarantine' | 'reject'

export type DmarcRecord = {
  /** Valid tags, lower-case names; the values of known tags as a receiver reads them. */
  tags: Map<string, string>
  /** Each one a reason receivers ignore the record (or part of it). */
  problems: string[]
}

const policies = new Set(['none', 'quarantine', 'reject'])
const reportUri = /^[a-z][a-z0-9+.-]*:[^\s,;!]+(?:![0-9]+[kmgt]?)?$/i

/** Tag → a check of its value; undefined when valid, else what is wrong. Unknown tags are ignored (RFC 7489 §6.3). */
const tagChecks: Record<string, (value: string) => string | undefined> = {
  p: (value) => (policies.has(value) ? undefined : `p=${value} is not none, quarantine or reject`),
  sp: (value) => (policies.has(value) ? undefined : `sp=${value} is not none, quarantine or reject`),
  np: (value) => (policies.has(value) ? undefined : `np=${value} is not none, quarantine or reject`),
  adkim: (value) => (value === 'r' || value === 's' ? undefined : `adkim=${value} is not r or s`),
  aspf: (value) => (value === 'r' || value === 's' ? undefined : `aspf=${value} is not r or s`),
  pct: (value) =>
    /^\d{1,3}$/.test(value) && Number(value) <= 100 ? undefined : `pct=${value} is not a whole number from 0 to 100`,
  ri: (value) => (/^\d+$/.test(value) ? undefined : `ri=${value} is not a number of seconds`),
  fo: (value) => (/^[01ds](:[01ds])*$/.test(value) ? undefined : `fo=${value} is not a list of 0, 1, d and s`),
  rua: (value) => reportUris('rua', value),
  ruf: (value) => reportUris('ruf', value),
}

function reportUris(tag: string, value: string): string | undefined {
  const bad = value.split(',').find((uri) => !reportUri.test(uri.trim()))
  return bad === undefined ? undefined : `${tag}: "${bad.trim()}" is not a URI such as mailto:dmarc@example.com`
}

const caseInsensitive = new Set(['p', 'sp', 'np', 'adkim', 'aspf', 'fo'])

/** A TXT record published at `_dmarc.` that is meant as DMARC, even when its version tag is wrong. */
export function looksLikeDmarc(txt: string): boolean {
  return /^\s*v\s*=\s*dmarc/i.test(txt)
}

/** Parses a DMARC record strictly (RFC 7489 §6.3, 6.4): every problem is one reason receivers may ignore it. */
export function parseDmarcRecord(txt: string): DmarcRecord {
  const tags = new Map<string, string>()
  const problems: string[] = []
  const parts = txt
    .trim()
    .replace(/^"|"$/g, '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '')
  parts.forEach((part, index) => {
    const equals = part.indexOf('=')
    if (equals <= 0) {
      problems.push(`"${part}" is not a tag=value pair`)
      return
    }
    const name = part.slice(0, equals).trim().toLowerCase()
    const raw = part.slice(equals + 1).trim()
    const value = caseInsensitive.has(name) ? raw.toLowerCase() : raw
    if (index === 0) {
      if (name !== 'v' || value !== 'DMARC1') problems.push(`the record must start with v=DMARC1, not "${part}"`)
      return
    }
    if (name === 'v') {
      problems.push('v= must be the first tag, and only once')
      return
    }
    if (tags.has(name)) {
      problems.push(`${name}= appears twice`)
      return
    }
    const problem = tagChecks[name]?.(value)
    if (problem) problems.push(problem)
    else if (tagChecks[name]) tags.set(name, value)
  })
  if (!tags.has('p') && !problems.some((problem) => problem.startsWith('p='))) {
    problems.push('there is no p= tag, the policy receivers apply')
  }
  return { tags, problems }
}

const tagOrder = ['p', 'sp', 'np', 'adkim', 'aspf', 'pct', 'fo', 'rua', 'ruf', 'ri']

/** The record with `policy` as its p= and without pct= (so it applies to all mail), tags in a fixed order. */
export function formatDmarcRecord(tags: ReadonlyMap<string, string>, policy: DmarcPolicy): string {
  const values = new Map(tags)
  values.set('p', policy)
  // A partial rollout is what the next step completes.
  values.delete('pct')
  const body = tagOrder.flatMap((tag) => {
    const value = values.get(tag)
    return value === undefined ? [] : [`${tag}=${value}`]
  })
  return `v=DMARC1; ${body.join('; ')};`
}

/** none → quarantine → reject: one step at a time, watching the reports in between. */
export function nextDmarcPolicy(policy: DmarcPolicy): DmarcPolicy {
  return policy === 'none' ? 'quarantine' : 'reject'
}
