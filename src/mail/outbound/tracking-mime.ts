import { isUtf8 } from 'node:buffer'
import { once } from 'node:events'
import { type MimeNode, Splitter, type SplitterChunk } from '@zone-eu/mailsplit'
import * as base64 from 'nodemailer/lib/base64'
import * as qp from 'nodemailer/lib/qp'
import { applyTracking, type TrackingOptions } from './tracking-html.js'

/**
 * Charsets in which every ASCII byte stands for itself, so the tracking's ASCII edits cannot land inside a
 * multi-byte character: UTF-8 and the single-byte ones. A part in any other charset (ISO-2022-JP, Shift_JIS...)
 * is left as it was, untracked.
 */
const asciiSafeCharset = /^(us-ascii|ascii|utf-?8|iso-8859-\d+|windows-125\d|cp125\d|latin-?1|koi8-[ru])$/

const lineLength = 76

/** An HTML body of the message (not an .html file attached to it) in a charset the tracking can edit safely. */
function isTrackableHtml(node: MimeNode): boolean {
  if (node.contentType !== 'text/html' || node.disposition === 'attachment') return false
  return asciiSafeCharset.test((node.charset || 'us-ascii').toLowerCase())
}

async function decodedBody(node: MimeNode, encoded: readonly Buffer[]): Promise<Buffer> {
  const decoder = node.getDecoder()
  const parts: Buffer[] = []
  decoder.on('data', (chunk: Buffer) => parts.push(chunk))
  const ended = once(decoder, 'end')
  for (const chunk of encoded) decoder.write(chunk)
  decoder.end()
  await ended
  return Buffer.concat(parts)
}

/**
 * The part's new body in its transfer encoding: base64 stays base64, anything else becomes quoted-printable
 * (the edits may lengthen a 7bit line past what SMTP allows), with nodemailer's encoders as for the mail we build.
 * The line break before the next boundary belongs to the boundary, so none is added at the end.
 */
function encodedBody(node: MimeNode, content: Buffer): Buffer {
  if (node.encoding === 'base64') return Buffer.from(base64.wrap(base64.encode(content), lineLength), 'latin1')
  if (node.encoding !== 'quoted-printable' && node.headers) {
    node.headers.update('Content-Transfer-Encoding', 'quoted-printable')
  }
  return Buffer.from(qp.wrap(qp.encode(content), lineLength), 'latin1')
}

/**
 * The HTML as text, and back: UTF-8 when it is valid UTF-8 (so a link with non-ASCII characters is redirected
 * to itself), otherwise a character per byte, which gives every byte back exactly as it was.
 */
function trackedContent(content: Buffer, options: TrackingOptions): Buffer {
  const encoding = isUtf8(content) ? 'utf8' : 'latin1'
  return Buffer.from(applyTracking(content.toString(encoding), options), encoding)
}

/**
 * Open and click tracking in a finished MIME message, as the client wrote it (SMTP submission): each HTML body
 * gets the pixel and the redirects (`applyTracking`). mailsplit splits the message into its parts' header
 * blocks, structure and bodies, all as the original bytes; only the HTML bodies (and a changed
 * Content-Transfer-Encoding) are replaced, everything else is joined back untouched.
 */
export async function trackHtmlParts(raw: Buffer, options: TrackingOptions): Promise<Buffer> {
  // Attached messages are leaves: their HTML belongs to someone else's mail.
  const splitter = new Splitter({ ignoreEmbedded: true })
  splitter.end(raw)
  // The message in order: bytes to keep, and HTML parts to track (a header block and its body's chunks).
  const pieces: (Buffer | { node: MimeNode; body: Buffer[] })[] = []
  for await (const item of splitter) {
    const chunk = item as SplitterChunk
    const last = pieces.at(-1)
    if (chunk.type === 'body' && last && !Buffer.isBuffer(last) && last.node === chunk.node) last.body.push(chunk.value)
    else if (chunk.type === 'node') pieces.push(isTrackableHtml(chunk) ? { node: chunk, body: [] } : chunk.getHeaders())
    else pieces.push(chunk.value)
  }
  const out: Buffer[] = []
  for (const piece of pieces) {
    if (Buffer.isBuffer(piece)) {
      out.push(piece)
      continue
    }
    const body = encodedBody(piece.node, trackedContent(await decodedBody(piece.node, piece.body), options))
    // After the body: encoding it may have changed the part's Content-Transfer-Encoding.
    out.push(piece.node.getHeaders(), body)
  }
  return Buffer.concat(out)
}
