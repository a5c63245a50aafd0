import { createHash, createSign, type KeyObject } from 'node:crypto'

export type DkimSigner = { domainName: string; selector: string; privateKey: KeyObject }

// Messages are handled as latin1 strings: one character per byte, so nothing is re-encoded.
const headerEnd = '\r\n\r\n'

/** RFC 6376 §3.4.4: trailing whitespace and empty lines go, inner runs of whitespace become one space. */
function relaxedBody(body: string): string {
  const canonical = body
    .replace(/[ \t]+\r\n/g, '\r\n')
    .replace(/[ \t]+/g, ' ')
    .replace(/(\r\n)*$/, '')
    .replace(/[ \t]+$/, '')
  return canonical === '' ? '' : `${canonical}\r\n`
}

/** RFC 6376 §3.4.2: lower-case name, unfolded value with single spaces, no whitespace around the colon. */
function relaxedHeader(field: string): string {
  const colon = field.indexOf(':')
  const name = field.slice(0, colon).trim().toLowerCase()
  const value = field
    .slice(colon + 1)
    .replace(/\r\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim()
  return `${name}:${value}`
}

/**
 * The relaxed/relaxed rsa-sha256 DKIM-Signature header field (CRLF-terminated) over the listed headers that are
 * present, to be put in front of the message. Done in one synchronous pass over the finished message, a string
 * with a character per byte: the stream-based signer costs as much again as the RSA operation itself at these
 * message sizes.
 */
export function dkimSignature(message: string, signer: DkimSigner, headerNames: readonly string[]): string {
  const split = message.indexOf(headerEnd)
  const head = split === -1 ? message : message.slice(0, split)
  const body = split === -1 ? '' : message.slice(split + headerEnd.length)

  const fields = head.split(/\r\n(?![ \t])/)
  const byName = new Map<string, string>()
  // With repeated fields the bottom-most one is signed first (RFC 6376 §5.4.2); we sign one of each.
  for (const field of fields) byName.set(field.slice(0, field.indexOf(':')).trim().toLowerCase(), field)
  const signed: string[] = []
  const canonical: string[] = []
  for (const name of headerNames) {
    const field = byName.get(name.toLowerCase())
    if (field === undefined) continue
    signed.push(name)
    canonical.push(relaxedHeader(field))
  }

  const bodyHash = createHash('sha256').update(relaxedBody(body), 'latin1').digest('base64')
  const unsigned =
    `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${signer.domainName};\r\n` +
    ` q=dns/txt; s=${signer.selector}; t=${Math.floor(Date.now() / 1000)};\r\n` +
    ` bh=${bodyHash};\r\n h=${signed.join(':')};\r\n b=`
  canonical.push(relaxedHeader(unsigned))
  const signature = createSign('RSA-SHA256').update(canonical.join('\r\n'), 'latin1').sign(signer.privateKey, 'base64')
  return `${unsigned}${signature}\r\n`
}
