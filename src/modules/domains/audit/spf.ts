import type { DnsResolver } from '../../../mail/dns.js'
import { finding } from './codes.js'
import type { Finding } from './schemas.js'
import { isSpfRecord, recommendSpf } from './spf-record.js'
import { type SpfSender, spfLookupLimit, walkSpf } from './spf-walk.js'

/** `true`: a receiver's SPF check passes for our sender; `unknown`: DNS did not let us tell. */
export type SpfVerdict = boolean | 'unknown'

function senderName(sender: SpfSender): string {
  return sender.kind === 'ses' ? 'Amazon SES' : sender.kind === 'relay' ? `your SMTP relay ${sender.host}` : 'Mailroom'
}

/**
 * What receivers make of the SPF record at the envelope (MAIL FROM) domain: present, valid, within 10 lookups,
 * free of loops, and naming the sender. Every finding that needs a change carries the one record to publish.
 */
export async function auditSpf(
  resolver: DnsResolver,
  options: { envelopeDomain: string; sender: SpfSender; mechanism: string | undefined; deadline: number },
): Promise<{ findings: Finding[]; verdict: SpfVerdict }> {
  const { envelopeDomain: domain, sender, mechanism } = options
  const answer = await resolver.txt(domain)
  if (answer.outcome === 'failed') {
    const reason = `The TXT records of ${domain} could not be looked up (timeout or server failure), so SPF was not checked. Receivers that see the same would answer "temperror" and may defer your mail.`
    return { findings: [finding('spf_lookup_failed', reason)], verdict: 'unknown' }
  }
  const records = answer.records.filter(isSpfRecord)
  const current = records[0]
  if (current === undefined) {
    const reason = `${domain} has no SPF record, so receivers cannot tell whether ${senderName(sender)} may send its mail ("none"). Publish one that names it.`
    const record = { type: 'TXT' as const, name: domain, value: recommendSpf(undefined, mechanism, new Set()) }
    return { findings: [finding('spf_missing', reason, record)], verdict: false }
  }

  const walk = await walkSpf(resolver, domain, current, { deadline: options.deadline, sender })
  const problems = [
    ...(records.length > 1 ? [`${domain} has ${records.length} SPF records; a receiver accepts only one`] : []),
    ...walk.problems,
  ]
  const authorizes = walk.authorizes(sender)
  const value = walk.tooMany
    ? recommendSpf(undefined, mechanism, new Set())
    : recommendSpf(current, authorizes === false ? mechanism : undefined, new Set(walk.loopTerm ? [walk.loopTerm] : []))
  const record = { type: 'TXT' as const, name: domain, value }
  const findings: Finding[] = []
  if (problems.length > 0) {
    findings.push(
      finding(
        'spf_invalid',
        `Receivers treat the SPF record of ${domain} as broken ("permerror"), which fails SPF: ${problems.join('; ')}.`,
        record,
      ),
    )
  }
  if (walk.loop) {
    findings.push(
      finding(
        'spf_loop',
        `The SPF record of ${domain} comes back to itself (${walk.loop.join(' → ')}). Receivers follow it until they run out of lookups and fail SPF ("permerror"). Remove the include that loops.`,
        record,
      ),
    )
  }
  if (walk.tooMany) {
    findings.push(
      finding(
        'spf_too_many_lookups',
        `The SPF record of ${domain} needs more than ${spfLookupLimit} DNS lookups (includes, a, mx, ptr, exists and redirect, counted through every include). Receivers stop at ${spfLookupLimit} and fail SPF ("permerror"). Keep only the senders you use, or list them as ip4:/ip6: ranges; the record below authorises ${senderName(sender)} alone.`,
        record,
      ),
    )
  }
  if (walk.failedAt !== undefined) {
    findings.push(
      finding(
        'spf_lookup_failed',
        `The SPF check of ${domain} did not finish: the lookup of ${walk.failedAt} failed or took too long. Receivers seeing the same answer "temperror" and may defer your mail.`,
      ),
    )
  }
  const complete = !walk.tooMany && walk.loop === undefined && walk.failedAt === undefined
  if (complete && authorizes === false) {
    findings.push(
      finding(
        'spf_not_authorized',
        `The SPF record of ${domain} does not name ${senderName(sender)}, so receivers see mail from it fail SPF. Add ${mechanism} to the record.`,
        record,
      ),
    )
  }
  if (findings.length === 0) {
    const who = sender.kind === 'none' ? 'is valid' : `authorises ${senderName(sender)}`
    findings.push(
      finding('spf_ok', `The SPF record of ${domain} ${who}, with ${walk.lookups} of ${spfLookupLimit} DNS lookups.`),
    )
  }
  const verdict: SpfVerdict =
    walk.failedAt !== undefined && problems.length === 0 && walk.loop === undefined && !walk.tooMany
      ? 'unknown'
      : findings.every((item) => item.code === 'spf_ok')
  return { findings, verdict }
}
