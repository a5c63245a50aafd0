import type { AuthStatus, DKIMVerifyResult, DNSResolver } from 'mailauth'
import { dkimVerify } from 'mailauth/lib/dkim/verify.js'
import { dmarc } from 'mailauth/lib/dmarc/index.js'
import { spf } from 'mailauth/lib/spf/index.js'

/**
 * SES-style verdicts of the `email.received` event. The spec names only PASS; the others are SES's own:
 * - PASS: the check succeeded
 * - FAIL: the check ran and the message failed it (SPF fail or softfail, a bad DKIM signature, DMARC fail)
 * - GRAY: nothing to check against (no SPF record or a neutral one, an unsigned message, no DMARC policy)
 * - PROCESSING_FAILED: no verdict could be reached (DNS timeout, a broken record, an internal error)
 * - DISABLED: the check is not performed at all (spam and virus scanning: Mailroom has no scanner)
 */
export type Verdict = 'PASS' | 'FAIL' | 'GRAY' | 'PROCESSING_FAILED' | 'DISABLED'

export type AuthenticationVerdicts = { spfVerdict: Verdict; dkimVerdict: Verdict; dmarcVerdict: Verdict }

export type AuthenticationInput = {
  /** The message exactly as received after DATA, as DKIM signs bytes. */
  raw: Buffer
  /** Address of the SMTP client. */
  ip: string
  /** EHLO/HELO name of the client. */
  helo: string
  /** MAIL FROM; '' for the null sender of bounces (SPF then checks the HELO name). */
  sender: string
  /** Our own host name, for the SPF `%{r}` macro. */
  mta: string
  /** Without one, mailauth asks the system's resolvers. */
  resolver?: DNSResolver | undefined
}

type AuthResult = AuthStatus['result']

// A whole SPF evaluation (up to 10 lookups) gets this long before it is a temperror.
const spfTimeLimitMs = 10_000

export function spfVerdictOf(result: AuthResult): Verdict {
  if (result === 'pass') return 'PASS'
  if (result === 'fail' || result === 'softfail') return 'FAIL'
  if (result === 'none' || result === 'neutral') return 'GRAY'
  return 'PROCESSING_FAILED'
}

/** Any good signature passes; otherwise a DNS problem means "unknown" rather than "forged". */
export function dkimVerdictOf(results: readonly AuthResult[]): Verdict {
  const signed = results.filter((result) => result !== 'none')
  if (signed.length === 0) return 'GRAY'
  if (signed.includes('pass')) return 'PASS'
  if (signed.some((result) => result === 'temperror' || result === 'temperr')) return 'PROCESSING_FAILED'
  return 'FAIL'
}

/** `undefined` is mailauth's "DMARC does not apply" (no usable author domain in From). */
export function dmarcVerdictOf(result: AuthResult | undefined): Verdict {
  if (result === 'pass') return 'PASS'
  if (result === 'fail') return 'FAIL'
  if (result === undefined || result === 'none') return 'GRAY'
  return 'PROCESSING_FAILED'
}

/** SPF, DKIM and DMARC of one received message. Never throws: a check that errors is PROCESSING_FAILED. */
export async function authenticateMessage(input: AuthenticationInput): Promise<AuthenticationVerdicts> {
  const [spfResult, dkimResult] = await Promise.all([
    spf({
      ip: input.ip,
      helo: input.helo,
      sender: input.sender,
      mta: input.mta,
      ...(input.resolver ? { resolver: input.resolver } : {}),
      maxElapsedTime: spfTimeLimitMs,
    }).catch(() => undefined),
    dkimVerify(input.raw, { ...(input.resolver ? { resolver: input.resolver } : {}), sender: input.sender }).catch(
      () => undefined,
    ),
  ])
  return {
    spfVerdict: spfResult ? spfVerdictOf(spfResult.status.result) : 'PROCESSING_FAILED',
    dkimVerdict: dkimResult ? dkimVerdictOf(dkimResult.results.map((row) => row.status.result)) : 'PROCESSING_FAILED',
    dmarcVerdict: dkimResult ? await checkDmarc(dkimResult, spfResult, input.resolver) : 'PROCESSING_FAILED',
  }
}

async function checkDmarc(
  dkimResult: DKIMVerifyResult,
  spfResult: { domain: string; status: AuthStatus } | undefined,
  resolver: DNSResolver | undefined,
): Promise<Verdict> {
  try {
    const result = await dmarc({
      headerFrom: dkimResult.headerFrom,
      fromFields: dkimResult.fromFields,
      spfDomains: spfResult?.status.result === 'pass' ? [spfResult.domain] : [],
      dkimDomains: dkimResult.results
        .filter((row) => row.status.result === 'pass' && row.signingDomain)
        .map((row) => ({
          domain: row.signingDomain ?? '',
          aligned: row.status.aligned ?? false,
          ...(row.id ? { id: row.id } : {}),
          ...(row.status.underSized === undefined ? {} : { underSized: row.status.underSized }),
        })),
      ...(resolver ? { resolver } : {}),
    })
    return dmarcVerdictOf(result === false ? undefined : result.status.result)
  } catch {
    return 'PROCESSING_FAILED'
  }
}
