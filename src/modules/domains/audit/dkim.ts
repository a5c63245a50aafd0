import type { DnsResolver } from '../../../mail/dns.js'
import type { DomainKeys } from '../dns-records.js'
import { dkimRecordName, dkimRecordValue } from '../dns-records.js'
import { dkimRecordMatches } from '../verification.js'
import { finding } from './codes.js'
import type { Finding } from './schemas.js'

/** Whether the key Mailroom signs with is the one published, which is all a receiver verifies a signature with. */
export async function auditDkim(resolver: DnsResolver, keys: DomainKeys): Promise<Finding> {
  const name = dkimRecordName(keys.domain, keys.dkimSelector)
  const expected = dkimRecordValue(keys.dkimPublicKey)
  const record = { type: 'TXT' as const, name, value: expected }
  const answer = await resolver.txt(name)
  if (answer.outcome === 'failed') {
    return finding(
      'dkim_lookup_failed',
      `The DKIM record at ${name} could not be looked up (timeout or server failure).`,
    )
  }
  if (answer.records.some((txt) => dkimRecordMatches(txt, expected))) {
    return finding('dkim_ok', `The DKIM key at ${name} is the one Mailroom signs ${keys.domain}'s mail with.`)
  }
  if (answer.records.some((txt) => /(^|;)\s*p\s*=/i.test(txt))) {
    const reason = `The DKIM record at ${name} holds a different key from the one Mailroom signs with, so every signature fails at receivers. Replace it with the record below.`
    return finding('dkim_key_mismatch', reason, record)
  }
  const reason = `There is no DKIM key at ${name}. Receivers cannot verify Mailroom's signature, so DMARC can only pass through SPF.`
  return finding('dkim_missing', reason, record)
}
