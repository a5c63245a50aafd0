import type { Finding, FindingRecord, FindingSeverity } from './schemas.js'

/** Every code the audit gives and its usual severity; docs/decisions/0001 says what each means. */
const severities = {
  dkim_ok: 'ok',
  dkim_missing: 'error',
  dkim_key_mismatch: 'error',
  dkim_lookup_failed: 'warning',
  spf_ok: 'ok',
  spf_missing: 'error',
  spf_invalid: 'error',
  spf_loop: 'error',
  spf_too_many_lookups: 'error',
  spf_not_authorized: 'error',
  spf_lookup_failed: 'warning',
  dmarc_ok: 'ok',
  dmarc_missing: 'error',
  dmarc_invalid: 'error',
  dmarc_policy_none: 'warning',
  dmarc_policy_quarantine: 'info',
  dmarc_policy_partial: 'info',
  dmarc_lookup_failed: 'warning',
  bounce_mx_ok: 'ok',
  bounce_mx_missing: 'error',
  bounce_mx_wrong: 'error',
  bounce_mx_lookup_failed: 'warning',
  return_path_ok: 'ok',
  return_path_missing: 'info',
  return_path_pending: 'warning',
  return_path_not_aligned: 'warning',
  return_path_ses_failed: 'error',
  tracking_ok: 'ok',
  tracking_not_https: 'warning',
  tracking_unreachable: 'error',
} as const satisfies Record<string, FindingSeverity>

export type FindingCode = keyof typeof severities

export function finding(
  code: FindingCode,
  reason: string,
  record?: FindingRecord,
  severity: FindingSeverity = severities[code],
): Finding {
  return { code, severity, reason, ...(record ? { record } : {}) }
}
