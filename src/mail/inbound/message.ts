import type { ParsedMail } from 'mailparser'
import sanitizeHtml from 'sanitize-html'
import type { Verdict } from './verdicts.js'

/** What the spec's `email.received` event carries, for one message received over SMTP or from SES. */
export type InboundMessage = {
  /** SMTP: the Message-ID header without angle brackets (a generated UUID when absent); SES: `mail.messageId`. */
  messageId: string
  /** Envelope sender (MAIL FROM); the From header address for the null sender of bounces. */
  from: string
  /** The From header as written, display name included: `Alice <alice@example.com>`. */
  fromHeader: string
  /** First address of the To header; the first envelope recipient when there is none. */
  to: string
  subject: string
  /** When the message was received, ISO 8601. */
  timestamp: string
  /** Envelope recipients (RCPT TO) that were accepted. */
  recipients: string[]
  /** Whether the message has a text or HTML body. */
  hasContent: boolean
  /** The HTML body, or the text body as simple HTML, sanitized: no scripts, event handlers or active links. */
  body: string
  spamVerdict: Verdict
  virusVerdict: Verdict
  spfVerdict: Verdict
  dkimVerdict: Verdict
  dmarcVerdict: Verdict
  processingTimeMillis: number
}

// The body is written by whoever sent the mail and ends up in dashboards and webhook payloads: keep the
// formatting and images, drop scripts, event handlers, forms and javascript: links (as Plunk does).
const bodyPolicy: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img'],
  allowedAttributes: {
    ...sanitizeHtml.defaults.allowedAttributes,
    img: ['src', 'alt', 'width', 'height'],
    '*': ['style'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
}

/** The HTML part, else the text part as escaped HTML, else '' — sanitized. */
export function bodyOf(parsed: ParsedMail): string {
  const html = typeof parsed.html === 'string' && parsed.html !== '' ? parsed.html : undefined
  // mailparser's own conversion escapes the text and links URLs; no content means an empty body.
  const body = html ?? (parsed.text ? (parsed.textAsHtml ?? '') : '')
  return body === '' ? '' : sanitizeHtml(body, bodyPolicy)
}
