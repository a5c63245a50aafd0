import type { Config } from '../../../config.js'
import { finding } from './codes.js'
import type { SpfAlignment } from './dmarc.js'
import type { Finding } from './schemas.js'

type Transport = Config['mailTransport']

/** SES's own documentation and the records Mailroom has always listed use `mail.`; elsewhere `bounce.` says what it is. */
function suggestedReturnPath(transport: Transport, domain: string): string {
  return `${transport === 'ses' ? 'mail' : 'bounce'}.${domain}`
}

/** The domain receivers see in MAIL FROM once the return path is in use, and whose SPF and MX are audited. */
export function envelopeDomainOf(transport: Transport, domain: string, returnPathDomain: string | null): string {
  // SES sends with its own MAIL FROM until one is set; the audit then judges the suggested one, the records to publish.
  return returnPathDomain ?? (transport === 'ses' ? suggestedReturnPath(transport, domain) : domain)
}

export type ReturnPathInput = {
  transport: Transport
  domain: string
  returnPathDomain: string | null
  /** Its SPF and MX records check out (`unknown`: DNS did not answer). */
  ready: boolean | 'unknown'
  spfAlignment: SpfAlignment
  /** What SES said when asked to use it; undefined when not asked. */
  sesError: string | undefined
}

/** `verified`: whether it is in use after this check; `unknown` keeps what was. */
export function auditReturnPath(input: ReturnPathInput): { findings: Finding[]; verified: boolean | 'unknown' } {
  const { transport, domain, returnPathDomain: returnPath } = input
  const ses = transport === 'ses'
  if (returnPath === null) {
    const suggested = suggestedReturnPath(transport, domain)
    const reason = ses
      ? `SES sends ${domain}'s mail with its own MAIL FROM (amazonses.com): SPF passes for Amazon, not for ${domain}, so DMARC rests on DKIM alone. Publish the MX and SPF records of ${suggested} and set it as the return-path domain (PUT /domains/:id/return-path).`
      : `Mail from ${domain} goes out with MAIL FROM at ${domain} itself, which aligns with the From. A return-path domain such as ${suggested} keeps bounces apart from your own mailbox: set it (PUT /domains/:id/return-path), then publish its MX and SPF records.`
    return { findings: [finding('return_path_missing', reason, undefined, ses ? 'warning' : 'info')], verified: false }
  }
  const findings: Finding[] = []
  if (input.spfAlignment === 'strict') {
    findings.push(
      finding(
        'return_path_not_aligned',
        `The DMARC record of ${domain} asks for strict SPF alignment (aspf=s), which only ${domain} itself meets: SPF for ${returnPath} will not count for DMARC, which then rests on DKIM alone. Use aspf=r (relaxed).`,
      ),
    )
  }
  if (input.ready === 'unknown') return { findings, verified: 'unknown' }
  const fallback = ses ? "SES's own (amazonses.com)" : domain
  if (!input.ready) {
    const reason = `${returnPath} is the return-path domain, but its MX and SPF records do not check out yet (see the findings above). Until they do, mail goes out with MAIL FROM at ${fallback}.`
    findings.push(finding('return_path_pending', reason))
    return { findings, verified: false }
  }
  if (input.sesError !== undefined) {
    const reason = `SES refused ${returnPath} as the MAIL FROM domain of ${domain} (${input.sesError}); it sends with its own meanwhile. ${domain} must be a verified identity in the SES region Mailroom uses.`
    findings.push(finding('return_path_ses_failed', reason))
    return { findings, verified: false }
  }
  const reason = ses
    ? `SES sends ${domain}'s mail with MAIL FROM at ${returnPath}, which aligns with the From.`
    : `Mail from ${domain} goes out with MAIL FROM at ${returnPath}, which aligns with the From.`
  findings.push(finding('return_path_ok', reason))
  return { findings, verified: true }
}
