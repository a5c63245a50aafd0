import { createHash } from 'node:crypto'
import type { SendBody } from '../../src/modules/send/schemas.js'

/** The relay benchmark's sender domain: verified for its project. */
export const relayBenchDomain = 'relay.bench.mailroom.test'
export const relayBenchFrom = `invoices@${relayBenchDomain}`

const attachmentSize = 14_500
const boundary = 'relay-bench-boundary'

/**
 * The attachment every message carries: bytes no compression or encoding shortcut helps with, the same in every
 * thread (a hash chain, not random), so both paths of the benchmark send the very same file.
 */
function invoiceBytes(): Buffer {
  const blocks: Buffer[] = []
  let block = createHash('sha256').update('relay-bench').digest()
  for (let size = 0; size < attachmentSize; size += block.length) {
    blocks.push(block)
    block = createHash('sha256').update(block).digest()
  }
  return Buffer.concat(blocks).subarray(0, attachmentSize)
}

const invoice = invoiceBytes()
const invoiceBase64 = invoice.toString('base64')
const invoiceLines = (invoiceBase64.match(/.{1,76}/g) ?? []).join('\r\n')

const subjectOf = (index: number) => `Your invoice #${index}`
const textOf = (index: number) =>
  `Hello reader ${index},\r\n\r\nyour invoice is attached. Thank you for your order.\r\n\r\nThe Bench team`

/**
 * Message `index` as an app writes it for SMTP (CRLF line ends; no line starts with a dot, so nothing to stuff):
 * a text part and a 14.5 kB PDF-typed attachment in base64, about 20 kB in all, to `recipient`.
 */
export function relayBenchMessage(index: number, recipient: string): Buffer {
  return Buffer.from(
    [
      `From: Bench Invoices <${relayBenchFrom}>`,
      `To: <${recipient}>`,
      `Subject: ${subjectOf(index)}`,
      `Date: ${new Date().toUTCString()}`,
      `X-Bench: ${index}`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 7bit',
      '',
      textOf(index),
      `--${boundary}`,
      'Content-Type: application/pdf; name="invoice.pdf"',
      'Content-Disposition: attachment; filename="invoice.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      invoiceLines,
      `--${boundary}--`,
      '',
    ].join('\r\n'),
    'latin1',
  )
}

/** The same message as a `POST /v1/send` body: the same subject, text, header and attachment. */
export function relayBenchSendBody(index: number, recipient: string): SendBody {
  return {
    from: { name: 'Bench Invoices', email: relayBenchFrom },
    to: recipient,
    subject: subjectOf(index),
    body: `<p>${textOf(index).replaceAll('\r\n', '<br>')}</p>`,
    headers: { 'X-Bench': String(index) },
    attachments: [
      { filename: 'invoice.pdf', content: invoiceBase64, contentType: 'application/pdf', disposition: 'attachment' },
    ],
  }
}
