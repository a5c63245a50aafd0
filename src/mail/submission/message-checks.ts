import { isAscii } from 'node:buffer'
import { SmtpRefusal } from './handler.js'

const CR = 0x0d
const LF = 0x0a
// A field name is printable ASCII without the colon (RFC 5322 3.6.8); obsolete syntax allows blanks before it.
const fieldLine = /^[\x21-\x39\x3b-\x7e]+[ \t]*:/

/**
 * Why a message as received after DATA cannot be taken, or undefined when it can. Each of these would otherwise
 * be repaired or read differently by some hop on the way (SMTP smuggling, header injection), so none is guessed at.
 */
export function findMessageProblem(raw: Buffer, declared8BitMime: boolean): SmtpRefusal | undefined {
  if (hasBareLineFeed(raw)) {
    return new SmtpRefusal(
      550,
      '5.6.0 Message refused: it has bare LF line endings; end every line with CRLF (RFC 5321 2.3.8)',
    )
  }
  if (raw.includes(0)) return new SmtpRefusal(554, '5.6.0 Message refused: it contains NUL bytes')
  if (hasBareCarriageReturn(raw)) {
    return new SmtpRefusal(554, '5.6.0 Message refused: it has a CR not followed by LF')
  }
  if (!declared8BitMime && !isAscii(raw)) {
    return new SmtpRefusal(
      554,
      '5.6.0 Message refused: it has 8-bit bytes but MAIL FROM did not declare BODY=8BITMIME (RFC 6152)',
    )
  }
  return findHeaderProblem(raw)
}

function hasBareLineFeed(raw: Buffer): boolean {
  for (let at = raw.indexOf(LF); at !== -1; at = raw.indexOf(LF, at + 1)) {
    if (at === 0 || raw[at - 1] !== CR) return true
  }
  return false
}

function hasBareCarriageReturn(raw: Buffer): boolean {
  for (let at = raw.indexOf(CR); at !== -1; at = raw.indexOf(CR, at + 1)) {
    if (raw[at + 1] !== LF) return true
  }
  return false
}

/** Every line of the header section is a field or the folded continuation of one (RFC 5322 2.2). */
function findHeaderProblem(raw: Buffer): SmtpRefusal | undefined {
  // A message that opens with the blank line has no header section at all: nothing to check here.
  if (raw[0] === CR) return undefined
  const blankLine = raw.indexOf('\r\n\r\n')
  // Without a blank line the whole message is its header section (no body), ending with the final CRLF.
  const end = blankLine === -1 ? raw.length - 2 : blankLine
  if (end <= 0) return undefined
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n')
  for (const [index, line] of lines.entries()) {
    const continuation = line.startsWith(' ') || line.startsWith('\t')
    if (continuation && index > 0) continue
    if (continuation || !fieldLine.test(line)) {
      // The message text may be client-controlled: quote only the line's number, never its contents.
      return new SmtpRefusal(
        554,
        `5.6.0 Message refused: header line ${index + 1} is not a "Name: value" field or its continuation`,
      )
    }
  }
  return undefined
}
