import * as base64 from 'nodemailer/lib/base64'
import type MimeNode from 'nodemailer/lib/mime-node'
import * as qp from 'nodemailer/lib/qp'

const lineLength = 76

/**
 * Writes a MIME tree built by nodemailer's MailComposer as one string with a character per byte (latin1), the
 * bytes `MimeNode.build()` would produce: nodemailer's own headers, encoders and line length. It skips only
 * nodemailer's streams — a pipeline of transforms per part, each settled on a later tick — which cost twice
 * as much CPU as the rest of composing a message. Content must be in memory (a string or a Buffer).
 */
export function serializeMime(root: MimeNode): string {
  const out: string[] = []
  writeNode(root, out)
  const text = out.join('')
  return text.endsWith('\n') ? text : `${text}\r\n`
}

function writeNode(node: MimeNode, out: string[]): void {
  // Builds the headers and, as a side effect, sets `multipart` and `boundary` on the node.
  const headers = node.buildHeaders()
  // A stream writes strings as UTF-8; nodemailer encodes every header to ASCII, but keep its bytes exact anyway.
  const ascii = Buffer.byteLength(headers, 'utf8') === headers.length
  out.push(ascii ? headers : Buffer.from(headers, 'utf8').toString('latin1'), '\r\n\r\n')
  if (node.content) out.push(encodedContent(node))
  if (!node.multipart) return
  node.childNodes.forEach((child, index) => {
    out.push(`${index > 0 ? '\r\n' : ''}--${node.boundary}\r\n`)
    writeNode(child, out)
  })
  out.push(`\r\n--${node.boundary}--\r\n`)
}

function encodedContent(node: MimeNode): string {
  const { content } = node
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  if (!Buffer.isBuffer(bytes)) throw new Error('MIME part content must be a string or a Buffer')
  switch (node.getTransferEncoding()) {
    case 'base64':
      return base64.wrap(base64.encode(bytes), lineLength)
    case 'quoted-printable':
      // Outside text nodemailer encodes CR and LF as data; only text parts may take this path.
      if (!/^text\//i.test(node.contentType ?? '')) throw new Error('quoted-printable is only used for text parts')
      return qp.wrap(qp.encode(bytes), lineLength)
    default:
      return bytes.toString('latin1')
  }
}
