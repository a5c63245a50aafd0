import type { ParsedMail } from 'mailparser'

/**
 * What an ARF complaint report (RFC 5965) says about the messages it reports: the report's `Feedback-Type` and
 * `User-Agent`, and the `CFBL-Feedback-ID` of the reported message (RFC 9477 §5 requires it in the report, even
 * one that leaves out everything else).
 */
export type ComplaintReport = { feedbackType: string; userAgent: string | undefined; feedbackIds: string[] }

// The report's third part: the reported message, or only its headers (what privacy-minded reporters send).
const reportedMessageTypes = new Set([
  'message/rfc822',
  'text/rfc822-headers',
  'message/rfc822-headers',
  'message/global',
  'message/global-headers',
])

/** The header block of a message or of a `message/feedback-report` part: unfolded fields, names in lower case. */
function headerFields(content: Buffer): Array<[string, string]> {
  const text = content.toString('utf8')
  const end = text.search(/\r?\n\r?\n/)
  const block = (end === -1 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ')
  const fields: Array<[string, string]> = []
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon > 0) fields.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()])
  }
  return fields
}

function fieldOf(fields: Array<[string, string]>, name: string): string | undefined {
  return fields.find(([field]) => field === name)?.[1]
}

/** The complaint report a received message is, or undefined for anything but `multipart/report; report-type=feedback-report`. */
export function complaintReportOf(parsed: ParsedMail): ComplaintReport | undefined {
  const contentType = parsed.headers.get('content-type')
  if (typeof contentType !== 'object' || !('params' in contentType) || contentType.value !== 'multipart/report') {
    return undefined
  }
  if (String(contentType.params['report-type'] ?? '').toLowerCase() !== 'feedback-report') return undefined
  const report = parsed.attachments.find((part) => part.contentType === 'message/feedback-report')
  if (!report) return undefined
  const fields = headerFields(report.content)
  const feedbackIds = parsed.attachments
    .filter((part) => reportedMessageTypes.has(part.contentType))
    .flatMap((part) => headerFields(part.content))
    .filter(([name]) => name === 'cfbl-feedback-id')
    .map(([, value]) => value)
  return {
    feedbackType: (fieldOf(fields, 'feedback-type') ?? 'abuse').toLowerCase(),
    userAgent: fieldOf(fields, 'user-agent'),
    feedbackIds,
  }
}
