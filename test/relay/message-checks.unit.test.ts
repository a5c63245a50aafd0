import { describe, expect, it } from 'vitest'
import { findMessageProblem } from '../../src/mail/submission/message-checks.js'

const crlf = (...lines: string[]) => Buffer.from(lines.join('\r\n'), 'utf8')
const problemOf = (raw: Buffer, declared8BitMime = false) => {
  const problem = findMessageProblem(raw, declared8BitMime)
  return problem && `${problem.responseCode} ${problem.message}`
}

describe('the form of a message taken after DATA', () => {
  it('takes fields, folded continuations, obsolete blanks before the colon and a body of any lines', () => {
    expect(
      problemOf(
        crlf(
          'Subject: a long',
          '\tfolded subject',
          'X-Old-Style : value',
          'From: a@b.test',
          '',
          'no: matter',
          ' at all',
          '',
        ),
      ),
    ).toBeUndefined()
  })

  it('takes a message that is only a header section, and one that is only a body', () => {
    expect(problemOf(crlf('Subject: no body', ''))).toBeUndefined()
    expect(problemOf(crlf('', 'a body without any header', ''))).toBeUndefined()
  })

  it('takes 8-bit bytes when BODY=8BITMIME was declared', () => {
    expect(problemOf(crlf('Subject: Grüße', '', 'Köln', ''), true)).toBeUndefined()
  })

  it('names the first problem it finds', () => {
    expect(problemOf(crlf('Subject: a', '', 'body\nwith a bare LF', ''))).toMatch(/^550 5\.6\.0 .*bare LF/)
    expect(problemOf(Buffer.from('Subject: a\n\nbody\n'))).toMatch(/^550 5\.6\.0 .*bare LF/)
    expect(problemOf(crlf('Subject: a', '', 'body\rwith a bare CR', ''))).toMatch(
      /^554 5\.6\.0 .*CR not followed by LF/,
    )
    expect(problemOf(crlf('Subject: a', '', 'a NUL \0 in the body', ''))).toMatch(/^554 5\.6\.0 .*NUL/)
    expect(problemOf(crlf('Subject: Grüße', '', ''))).toMatch(/^554 5\.6\.0 .*BODY=8BITMIME/)
    expect(problemOf(crlf('Subject: a', 'not a field', '', ''))).toBe(
      '554 5.6.0 Message refused: header line 2 is not a "Name: value" field or its continuation',
    )
    expect(problemOf(crlf('Sub ject: a space in the name', '', ''))).toMatch(/header line 1 /)
    expect(problemOf(crlf(': no name', '', ''))).toMatch(/header line 1 /)
  })
})
