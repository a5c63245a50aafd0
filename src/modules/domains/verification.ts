import type { DnsRecordStatus } from '../../db/schema/index.js'
import type { DnsAnswer, DnsResolver } from '../../mail/dns.js'
import type { DnsRecordSpec } from './dns-records.js'
import type { DnsRecordPurpose } from './schemas.js'

/** `unknown`: the lookup failed (timeout, SERVFAIL), so the previous status stands. */
type RecordCheck = DnsRecordStatus | 'unknown'

export type DomainCheck = Partial<Record<DnsRecordPurpose, RecordCheck>>

/** `"v=DKIM1; k=rsa; p=AB CD"` → `{v: 'DKIM1', k: 'rsa', p: 'ABCD'}`; quotes and whitespace are ignored. */
function parseTagList(value: string): Map<string, string> {
  const tags = new Map<string, string>()
  for (const part of value.replace(/["\s]/g, '').split(';')) {
    const separator = part.indexOf('=')
    if (separator > 0) tags.set(part.slice(0, separator).toLowerCase(), part.slice(separator + 1))
  }
  return tags
}

export function dkimRecordMatches(txt: string, expected: string): boolean {
  const found = parseTagList(txt)
  const wanted = parseTagList(expected)
  const version = found.get('v')
  const keyType = found.get('k')
  return (
    (version === undefined || version.toUpperCase() === 'DKIM1') &&
    (keyType === undefined || keyType.toLowerCase() === 'rsa') &&
    found.get('p') === wanted.get('p')
  )
}

function spfMatches(txt: string, expected: string): boolean {
  const value = txt.trim().replace(/^"|"$/g, '').toLowerCase()
  if (!/^v=spf1(\s|$)/.test(value)) return false
  // For a provider include (SES), the include itself is what matters; any SPF policy is accepted otherwise.
  const include = expected
    .toLowerCase()
    .split(/\s+/)
    .find((term) => term.startsWith('include:'))
  return include === undefined || value.split(/\s+/).includes(include)
}

function dmarcMatches(txt: string): boolean {
  return /^v=dmarc1\s*(;|$)/i.test(txt.trim().replace(/^"|"$/g, ''))
}

function statusOf<T>(answer: DnsAnswer<T>, matches: (record: T) => boolean): RecordCheck {
  if (answer.outcome === 'failed') return 'unknown'
  return answer.records.some(matches) ? 'verified' : 'pending'
}

async function checkRecord(resolver: DnsResolver, record: DnsRecordSpec): Promise<RecordCheck> {
  if (record.type === 'MX') {
    const expected = record.value.toLowerCase()
    return statusOf(await resolver.mx(record.name), (mx) => mx.exchange.toLowerCase().replace(/\.$/, '') === expected)
  }
  const answer = await resolver.txt(record.name)
  switch (record.purpose) {
    case 'DKIM':
      return statusOf(answer, (txt) => dkimRecordMatches(txt, record.value))
    case 'SPF':
      return statusOf(answer, (txt) => spfMatches(txt, record.value))
    case 'DMARC':
      return statusOf(answer, dmarcMatches)
    default:
      return statusOf(answer, (txt) => txt.trim() === record.value)
  }
}

/** Looks every record up now (the resolver must not cache), in parallel. */
export async function checkDomainRecords(
  resolver: DnsResolver,
  records: readonly DnsRecordSpec[],
): Promise<DomainCheck> {
  const results = await Promise.all(records.map((record) => checkRecord(resolver, record)))
  return Object.fromEntries(records.map((record, index) => [record.purpose, results[index] ?? 'unknown']))
}
