import { describe, expect, it } from 'vitest'
import { SmtpRefusal } from '../../src/mail/submission/handler.js'
import { readSubmittedMessage } from '../../src/modules/relay/message-headers.js'

const now = new Date('2026-11-28T10:00:00Z')
const read = (text: string) => readSubmittedMessage(Buffer.from(text, 'utf8'), 'stored-id', now)

function refusal(text: string): { code: number; message: string } {
  try {
    read(text)
  } catch (err) {
    if (err instanceof SmtpRefusal) return { code: err.responseCode, message: err.message }
    throw err
  }
  throw new Error('not refused')
}

describe('reading a submitted message', () => {
  it('keeps a complete message byte for byte', () => {
    const text =
      'From: "Shop" <shop@example.com>\r\nTo: a@example.net\r\nSubject: Hi\r\nDate: Sat, 28 Nov 2026 09:00:00 +0000\r\n' +
      'Message-ID: <m1@example.com>\r\nX-Folded: one\r\n two\r\n\r\nBody\r\n'
    const message = read(text)
    expect(message.raw.toString('utf8')).toBe(text)
    expect(message).toMatchObject({
      from: { email: 'shop@example.com', name: 'Shop' },
      subject: 'Hi',
      messageId: 'm1@example.com',
      idempotencyKey: undefined,
    })
  })

  it('removes every Bcc field, folded lines included, and the Idempotency-Key, touching nothing else', () => {
    const message = read(
      'From: shop@example.com\r\nBcc: a@example.net,\r\n b@example.net\r\nTo: c@example.net\r\nbcc: d@example.net\r\n' +
        'Idempotency-Key: order-42\r\nMessage-ID: <m2@example.com>\r\nDate: Sat, 28 Nov 2026 09:00:00 +0000\r\n\r\nBody\r\n',
    )
    expect(message.raw.toString('utf8')).toBe(
      'From: shop@example.com\r\nTo: c@example.net\r\nMessage-ID: <m2@example.com>\r\n' +
        'Date: Sat, 28 Nov 2026 09:00:00 +0000\r\n\r\nBody\r\n',
    )
    expect(message.idempotencyKey).toBe('order-42')
  })

  it('adds a Message-ID on the From domain and a Date when the client gave none', () => {
    const message = read('From: shop@Example.COM\r\nSubject: x\r\n\r\nBody\r\n')
    expect(message.messageId).toBe('stored-id@example.com')
    expect(message.raw.toString('utf8')).toBe(
      'Date: Sat, 28 Nov 2026 10:00:00 +0000\r\nMessage-ID: <stored-id@example.com>\r\n' +
        'From: shop@Example.COM\r\nSubject: x\r\n\r\nBody\r\n',
    )
  })

  it('decodes encoded words and raw UTF-8 (8BITMIME) in the subject and the sender name', () => {
    expect(
      read('From: =?UTF-8?Q?Zo=C3=AB?= <z@example.com>\r\nSubject: =?UTF-8?B?R3LDvMOfZQ==?=\r\n\r\nx').subject,
    ).toBe('Grüße')
    const raw = read('From: Zoë <z@example.com>\r\nSubject: Grüße ✓\r\n\r\nx')
    expect(raw.from).toEqual({ email: 'z@example.com', name: 'Zoë' })
    expect(raw.subject).toBe('Grüße ✓')
  })

  it('refuses a message without exactly one From mailbox, and a bad Idempotency-Key, with 550 5.6.0', () => {
    expect(refusal('To: a@example.net\r\n\r\nx')).toEqual({
      code: 550,
      message: '5.6.0 The message has no From header; receivers need one to judge it',
    })
    expect(refusal('From: a@example.com\r\nFrom: b@example.com\r\n\r\nx').message).toBe(
      '5.6.0 The message has more than one From header',
    )
    for (const from of ['a@example.com, b@example.com', 'nobody', 'Group:;']) {
      expect(refusal(`From: ${from}\r\n\r\nx`).message).toBe(
        '5.6.0 The From header must name exactly one valid address',
      )
    }
    expect(refusal(`From: a@example.com\r\nIdempotency-Key: ${'k'.repeat(256)}\r\n\r\nx`).message).toBe(
      '5.6.0 Idempotency-Key must be 1 to 255 printable ASCII characters',
    )
  })
})
