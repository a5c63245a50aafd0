import { z } from 'zod'

/**
 * Every finding the pre-send check can give. A closed list, so clients and the dashboard can branch on a code;
 * the severity of some depends on what is checked (an unsubscribe link is required of marketing mail only).
 */
const presendCodes = [
  'unsubscribe_link_missing',
  'one_click_not_https',
  'text_part_empty',
  'text_part_thin',
  'html_too_large',
  'html_near_clip_limit',
  'html_unparseable',
  'html_malformed',
  'link_shortener',
  'link_ip_address',
  'image_missing_alt',
  'from_domain_not_ready',
  'subject_all_caps',
] as const
export type PresendCode = (typeof presendCodes)[number]

export const presendFinding = z.object({
  code: z.enum(presendCodes),
  /** `error` blocks a campaign's send and schedule (an owner may override); `warning` never blocks. */
  severity: z.enum(['error', 'warning']),
  /** Plain language: what is wrong and what to do about it. */
  message: z.string(),
  /** The field the finding is about, as a dot-path (`body`, `subject`, `from`, `headers.List-Unsubscribe`). */
  field: z.string(),
  /** A few of the offending items (links, image sources, tags with their line), when there are any. */
  examples: z.array(z.string()).optional(),
})
export type PresendFinding = z.infer<typeof presendFinding>
export type Severity = PresendFinding['severity']

/** How many offending items a finding names: a 5 MB body must give a short answer, not one per image. */
const maxExamples = 5

export function finding(
  code: PresendCode,
  severity: Severity,
  field: string,
  message: string,
  examples?: readonly string[],
): PresendFinding {
  return {
    code,
    severity,
    field,
    message,
    ...(examples && examples.length > 0 ? { examples: examples.slice(0, maxExamples) } : {}),
  }
}

/** Errors first, then warnings, each in the order they were found. */
export function sortFindings(findings: readonly PresendFinding[]): PresendFinding[] {
  return [
    ...findings.filter((item) => item.severity === 'error'),
    ...findings.filter((item) => item.severity === 'warning'),
  ]
}

export const errorsOf = (findings: readonly PresendFinding[]) => findings.filter((item) => item.severity === 'error')
