import type { DnsResolver } from '../../../mail/dns.js'
import { finding } from './codes.js'
import {
  type DmarcPolicy,
  formatDmarcRecord,
  looksLikeDmarc,
  nextDmarcPolicy,
  parseDmarcRecord,
} from './dmarc-record.js'
import type { Finding } from './schemas.js'

/** How the policy found wants SPF aligned; undefined when no usable policy applies. */
export type SpfAlignment = 'relaxed' | 'strict' | undefined

type Found = { name: string; records: string[]; inherited: boolean } | 'failed' | undefined

/** Parents are asked as receivers do when a subdomain has no record of its own (RFC 9989's tree walk, bounded). */
const maxParents = 7

async function findDmarc(resolver: DnsResolver, domain: string): Promise<Found> {
  const labels = domain.split('.')
  for (let start = 0; start < labels.length - 1 && start <= maxParents; start++) {
    const name = `_dmarc.${labels.slice(start).join('.')}`
    const answer = await resolver.txt(name)
    if (answer.outcome === 'failed') return 'failed'
    // Anything at the domain's own _dmarc name is meant as its DMARC record; above it, only real ones count.
    const records = start === 0 ? answer.records : answer.records.filter(looksLikeDmarc)
    if (records.length > 0) return { name, records, inherited: start > 0 }
  }
  return undefined
}

const policyReasons: Record<DmarcPolicy, string> = {
  none: 'asks receivers to do nothing with mail that fails DMARC (p=none): it only collects reports. Once the reports show all your own mail passing, ask for quarantine',
  quarantine:
    'asks receivers to put mail that fails DMARC in spam (p=quarantine). When the reports show no legitimate mail failing, ask for reject',
  reject: 'asks receivers to refuse mail that fails DMARC (p=reject)',
}

/** The DMARC policy that applies to the From domain, its alignment modes, and the next policy to move to. */
export async function auditDmarc(
  resolver: DnsResolver,
  domain: string,
): Promise<{ findings: Finding[]; spfAlignment: SpfAlignment }> {
  const own = `_dmarc.${domain}`
  const found = await findDmarc(resolver, domain)
  if (found === 'failed') {
    const reason = `The DMARC record at ${own} could not be looked up (timeout or server failure); check again later.`
    return { findings: [finding('dmarc_lookup_failed', reason)], spfAlignment: undefined }
  }
  if (found === undefined) {
    const reason = `${domain} has no DMARC record (none at ${own} or above it). Gmail and Yahoo require one from bulk senders. Start with p=none to collect reports, then tighten the policy.`
    const record = { type: 'TXT' as const, name: own, value: 'v=DMARC1; p=none;' }
    return { findings: [finding('dmarc_missing', reason, record)], spfAlignment: undefined }
  }
  const where = found.inherited ? `${found.name} (inherited by ${domain})` : found.name
  const [first] = found.records
  const parsed = parseDmarcRecord(first ?? '')
  const problems = [
    ...(found.records.length > 1 ? [`there are ${found.records.length} records, and receivers ignore them all`] : []),
    ...parsed.problems,
  ]
  if (problems.length > 0) {
    const policy = (parsed.tags.get('p') as DmarcPolicy | undefined) ?? 'none'
    const record = { type: 'TXT' as const, name: found.name, value: formatDmarcRecord(parsed.tags, policy) }
    const reason = `Receivers may ignore the DMARC record at ${where}, as if there were none: ${problems.join('; ')}.`
    return { findings: [finding('dmarc_invalid', reason, record)], spfAlignment: undefined }
  }
  const { tags } = parsed
  const policy = ((found.inherited ? tags.get('sp') : undefined) ?? tags.get('p')) as DmarcPolicy
  const pct = Number(tags.get('pct') ?? '100')
  const spfAlignment = tags.get('aspf') === 's' ? 'strict' : 'relaxed'
  const alignment = `DKIM alignment is ${tags.get('adkim') === 's' ? 'strict' : 'relaxed'} (adkim), SPF alignment ${spfAlignment} (aspf)`
  const ownTags = new Map([...tags].filter(([tag]) => tag !== 'sp'))
  const partial = pct < 100 ? ` It applies to ${pct} % of that mail only (pct=${pct}).` : ''
  const lead = `The DMARC record at ${where} ${policyReasons[policy]}.${partial} ${alignment}.`
  if (policy !== 'reject') {
    const next = nextDmarcPolicy(policy)
    const record = { type: 'TXT' as const, name: own, value: formatDmarcRecord(ownTags, next) }
    const code = policy === 'none' ? 'dmarc_policy_none' : 'dmarc_policy_quarantine'
    return { findings: [finding(code, `${lead} Next: p=${next}.`, record)], spfAlignment }
  }
  if (pct < 100) {
    const record = { type: 'TXT' as const, name: own, value: formatDmarcRecord(ownTags, 'reject') }
    return { findings: [finding('dmarc_policy_partial', `${lead} Next: drop pct=.`, record)], spfAlignment }
  }
  return { findings: [finding('dmarc_ok', lead)], spfAlignment }
}
