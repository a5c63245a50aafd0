import { createPrivateKey, type KeyObject, randomUUID } from 'node:crypto'
import MailComposer from 'nodemailer/lib/mail-composer'
import { type ContactRender, renderForContact } from './contact-render.js'
import { dkimSignature } from './dkim.js'
import { serializeMime } from './mime.js'
import { plainTextOf } from './plain-text.js'
import { type TrackingOptions, trackHtml } from './tracking-html.js'
import { type EmailTracking, emailTracker, type TrackedLink } from './tracking-links.js'

type MailAddress = { email: string; name?: string | null }

type MailAttachment = {
  filename: string
  contentType: string
  content: Uint8Array
  /** Set for inline parts referenced from the HTML as `cid:<contentId>`. */
  contentId?: string | null
  disposition: 'attachment' | 'inline'
}

export type MessageSpec = {
  /** Without angle brackets, e.g. `4f1c…@example.com`. */
  messageId: string
  from: MailAddress
  to: MailAddress
  replyTo?: string | null
  subject: string
  html: string
  headers?: Record<string, string>
  attachments?: readonly MailAttachment[]
  date?: Date
}

export type DkimKey = { domainName: string; selector: string; privateKeyPem: string }

/**
 * The job a compose worker runs for a message it builds: render campaign content for its contact when given
 * (`composeMessageJob`), add open and click tracking when asked, build the MIME message, then sign it when a key is
 * given. Tracking is applied here rather than at enqueue so the stored HTML stays the original.
 */
export type MessageJob = {
  message: MessageSpec
  render?: ContactRender
  dkim?: DkimKey
  tracking?: EmailTracking
  /** `Feedback-ID` and the CFBL pair (`feedback-headers.ts`): set at delivery, kept when a render replaces the headers. */
  feedbackHeaders?: Record<string, string>
}

/**
 * A built message and the subject it went out with (rendered for its contact when the job had a `render`); when
 * tracked, the links its click URLs name, which must be stored before it is sent.
 */
export type BuiltMessage = { raw: Buffer; subject: string; links?: TrackedLink[] }

// The headers a receiver shows or acts on; a signature over them cannot be replayed with other content.
const signedHeaderNames: readonly string[] = [
  'From',
  'Sender',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'In-Reply-To',
  'References',
  'List-Id',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
  // Gmail and RFC 9477 act on these only when the signature covers them.
  'Feedback-ID',
  'CFBL-Address',
  'CFBL-Feedback-ID',
]

// Custom headers may not replace what the message structure or its identity depends on.
export const reservedHeaders: ReadonlySet<string> = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'sender',
  'subject',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'dkim-signature',
  'return-path',
  // Complaint reports go where Mailroom can take them, about an email it can name.
  'cfbl-address',
  'cfbl-feedback-id',
])

/** The message's custom headers, then the feedback headers it does not set itself (a caller's own Feedback-ID stays). */
function customHeaders(
  headers: Record<string, string> | undefined,
  feedbackHeaders: Record<string, string> = {},
): Record<string, string> {
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (reservedHeaders.has(name.toLowerCase())) continue
    // The send route rejects CR/LF already; never let one through to the wire regardless.
    result[name.replace(/[\r\n:]/g, '')] = value.replace(/[\r\n]+/g, ' ')
  }
  const given = new Set(Object.keys(result).map((name) => name.toLowerCase()))
  for (const [name, value] of Object.entries(feedbackHeaders)) if (!given.has(name.toLowerCase())) result[name] = value
  return result
}

/**
 * Builds the MIME message: multipart/alternative (text from the HTML, then HTML), inline parts, attachments.
 * With `tracking`, the HTML part gets the pixel and both parts the same short click URLs: a link counted in one part
 * only would change how filters count the message's URLs (docs/decisions/0004). Returns the message as a string
 * with a character per byte (latin1), with CRLF line ends.
 */
function composeMessage(message: MessageSpec, tracking?: TrackingOptions, feedback?: Record<string, string>): string {
  const tracked = tracking && trackHtml(message.html, tracking)
  const composer = new MailComposer({
    from: { name: message.from.name ?? '', address: message.from.email },
    to: { name: message.to.name ?? '', address: message.to.email },
    ...(message.replyTo ? { replyTo: message.replyTo } : {}),
    subject: message.subject,
    messageId: `<${message.messageId}>`,
    date: message.date ?? new Date(),
    html: tracked ? tracked.html : message.html,
    text: plainTextOf(tracked ? tracked.linksOnly : message.html).replace(/\n/g, '\r\n'),
    headers: customHeaders(message.headers, feedback),
    attachments: (message.attachments ?? []).map((attachment) => ({
      filename: attachment.filename,
      contentType: attachment.contentType,
      content: Buffer.from(attachment.content.buffer, attachment.content.byteOffset, attachment.content.byteLength),
      // base64 keeps every byte as given; quoted-printable would rewrite line breaks of text files.
      contentTransferEncoding: 'base64',
      contentDisposition: attachment.disposition,
      ...(attachment.contentId ? { cid: attachment.contentId } : {}),
    })),
    disableFileAccess: true,
    disableUrlAccess: true,
    // Otherwise each part draws its own `randomBytes(8)`: 15–40 µs apiece on this kind of VM, against ~1 µs for a
    // UUID from Node's buffered pool. Every part's boundary still differs (it adds the part number).
    baseBoundary: randomUUID().replaceAll('-', ''),
  })
  return withCrlfLineEnds(serializeMime(composer.compile()))
}

/**
 * 7bit parts (the text alternative, plain-ASCII HTML) keep their bare LFs. SMTP turns them into CRLF on
 * the wire, so the bytes we sign and store must already have them, or the body hash would not match.
 */
function withCrlfLineEnds(text: string): string {
  return /(?<!\r)\n/.test(text) ? text.replace(/\r?\n/g, '\r\n') : text
}

/** Parsing a PEM costs about as much as a signature, so each thread keeps the keys it has seen. */
export class PrivateKeyCache {
  private readonly keys = new Map<string, KeyObject>()
  constructor(private readonly maxKeys = 256) {}

  get(pem: string): KeyObject {
    let key = this.keys.get(pem)
    if (!key) {
      if (this.keys.size >= this.maxKeys) this.keys.clear()
      key = createPrivateKey(pem)
      this.keys.set(pem, key)
    }
    return key
  }
}

/**
 * The finished message, DKIM-signed when the job has a key. Its bytes are an ArrayBuffer of their own, so a
 * compose thread can hand them over without a copy.
 */
export function buildMessage(job: MessageJob, keys = new PrivateKeyCache()): Buffer {
  return buildTrackedMessage(job, keys).raw
}

function buildTrackedMessage(job: MessageJob, keys: PrivateKeyCache): Omit<BuiltMessage, 'subject'> {
  const tracker = job.tracking && emailTracker(job.tracking)
  const raw = signedBytes(composeMessage(job.message, tracker?.options, job.feedbackHeaders), job.dkim, keys)
  const links = tracker?.links()
  return links?.length ? { raw, links } : { raw }
}

/**
 * What a compose thread runs for a message it builds: renders the job's campaign content for its contact first,
 * when it has some (its subject, body and List-Unsubscribe headers replace the stored ones), then builds it.
 */
export async function composeMessageJob(job: MessageJob, keys: PrivateKeyCache): Promise<BuiltMessage> {
  if (!job.render) return { ...buildTrackedMessage(job, keys), subject: job.message.subject }
  const { subject, html, headers } = await renderForContact(job.render)
  return { ...buildTrackedMessage({ ...job, message: { ...job.message, subject, html, headers } }, keys), subject }
}

/**
 * A finished message (a string with a character per byte, CRLF line ends) as bytes, with a DKIM signature in
 * front when a key is given: every message leaves through here, built or relayed.
 */
export function signedBytes(text: string, key: DkimKey | undefined, keys: PrivateKeyCache): Buffer {
  const message = key ? signed(text, key, keys) : text
  const bytes = Buffer.allocUnsafeSlow(message.length)
  bytes.write(message, 'latin1')
  return bytes
}

function signed(text: string, key: DkimKey, keys: PrivateKeyCache): string {
  const signer = { domainName: key.domainName, selector: key.selector, privateKey: keys.get(key.privateKeyPem) }
  return dkimSignature(text, signer, signedHeaderNames) + text
}
