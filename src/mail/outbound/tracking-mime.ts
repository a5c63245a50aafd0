import { isUtf8 } from 'node:buffer'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Joiner, type MimeNode, Rewriter, Splitter } from '@zone-eu/mailsplit'
import { applyTracking, type TrackingOptions } from './tracking-html.js'

/**
 * Charsets in which every ASCII byte stands for itself, so the tracking's ASCII edits cannot land inside a
 * multi-byte character: UTF-8 and the single-byte ones. A part in any other charset (ISO-2022-JP, Shift_JIS...)
 * is left as it was, untracked.
 */
const asciiSafeCharset = /^(us-ascii|ascii|utf-?8|iso-8859-\d+|windows-125\d|cp125\d|latin-?1|koi8-[ru])$/

/** An HTML body of the message (not an .html file attached to it) in a charset the tracking can edit safely. */
function isTrackableHtml(node: MimeNode): boolean {
  if (node.contentType !== 'text/html' || node.disposition === 'attachment') return false
  return asciiSafeCharset.test((node.charset || 'us-ascii').toLowerCase())
}

/**
 * The decoded part as text, and back: UTF-8 when it is valid UTF-8 (so a link with non-ASCII characters is
 * redirected to itself), otherwise a character per byte, which gives every byte back exactly as it was.
 */
function rewritePart(content: Buffer, options: TrackingOptions): Buffer {
  const encoding = isUtf8(content) ? 'utf8' : 'latin1'
  return Buffer.from(applyTracking(content.toString(encoding), options), encoding)
}

/**
 * Open and click tracking in a finished MIME message, as the client wrote it (SMTP submission): each HTML body
 * gets the pixel and the redirects (`applyTracking`), decoded from and encoded back to its transfer encoding
 * (7bit and 8bit become quoted-printable, since the edits may lengthen lines). Every other byte of the message,
 * the text parts, attachments and headers included, is passed through unchanged by mailsplit, which splits and
 * joins messages without re-encoding what it does not rewrite.
 */
export async function trackHtmlParts(raw: Buffer, options: TrackingOptions): Promise<Buffer> {
  // Attached messages are leaves: their HTML belongs to someone else's mail.
  const splitter = new Splitter({ ignoreEmbedded: true })
  const rewriter = new Rewriter(isTrackableHtml)
  rewriter.on('node', ({ decoder, encoder }) => {
    const parts: Buffer[] = []
    decoder.on('data', (chunk: Buffer) => parts.push(chunk))
    decoder.on('end', () => encoder.end(rewritePart(Buffer.concat(parts), options)))
    decoder.on('error', (err: Error) => encoder.destroy(err))
  })
  const chunks: Buffer[] = []
  const collect = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk)
      callback()
    },
  })
  splitter.end(raw)
  await pipeline(splitter, rewriter, new Joiner(), collect)
  return Buffer.concat(chunks)
}
