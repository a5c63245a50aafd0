import { randomBytes } from 'node:crypto'
import MailComposer from 'nodemailer/lib/mail-composer'
import { describe, expect, it } from 'vitest'
import { serializeMime } from '../../../src/mail/outbound/mime.js'

type Mail = ConstructorParameters<typeof MailComposer>[0]

const base: Mail = {
  from: { name: 'Mailroom', address: 'news@mail.example.test' },
  to: { name: 'Reader', address: 'reader@example.org' },
  subject: 'Hello',
  messageId: '<fixed@mail.example.test>',
  date: new Date('2026-11-23T12:00:00Z'),
  // Fixed boundaries, so both builds can be compared byte for byte.
  baseBoundary: 'fixedboundary',
  html: '<p>Hello</p>',
  text: 'Hello',
  disableFileAccess: true,
  disableUrlAccess: true,
}

const cases: Record<string, Mail> = {
  'plain ASCII alternatives': base,
  'non-ASCII names, subject and bodies': {
    ...base,
    from: { name: 'Zoë Müller — Ünïcode', address: 'news@mail.example.test' },
    to: { name: '读者 Reader', address: 'reader@example.org' },
    replyTo: 'help@mail.example.test',
    subject: 'Grüße aus Köln ✉ 测试 '.repeat(8),
    html: `<p>héllo wörld ${'naïve café '.repeat(40)}</p>`,
    text: 'héllo\r\nwörld',
  },
  'long ASCII lines and trailing whitespace': {
    ...base,
    html: `<p>${'word '.repeat(200)}</p>   \n<p>end \t</p>`,
    text: `${'x'.repeat(300)}\r\nline with trailing space   `,
  },
  'custom headers': { ...base, headers: { 'X-Campaign': 'spring', 'X-Note': 'Grüße ✓' } },
  'attachments, inline parts and binary CR/LF bytes': {
    ...base,
    html: '<p>Logo</p><img src="cid:logo@mr">',
    attachments: [
      {
        filename: 'notes.txt',
        contentType: 'text/plain',
        content: Buffer.from('a\nb\r\nc\n'),
        contentTransferEncoding: 'base64',
      },
      { filename: 'data.bin', contentType: 'application/octet-stream', content: Buffer.from([0, 13, 10, 255, 13]) },
      {
        filename: 'logo.png',
        contentType: 'image/png',
        content: randomBytes(5000),
        cid: 'logo@mr',
        contentDisposition: 'inline',
      },
      { filename: 'Bericht für Köln.pdf', contentType: 'application/pdf', content: randomBytes(100) },
    ],
  },
  'HTML only': { ...base, text: undefined },
  'an empty body': { ...base, html: undefined, text: '' },
}

describe('serializing a MIME tree without streams', () => {
  for (const [name, mail] of Object.entries(cases)) {
    it(`writes the bytes nodemailer's build() writes: ${name}`, async () => {
      const streamed = await new MailComposer(mail).compile().build()
      const serialized = Buffer.from(serializeMime(new MailComposer(mail).compile()), 'latin1')
      expect(serialized.toString('latin1')).toBe(streamed.toString('latin1'))
    })
  }

  it('refuses content that is not in memory', () => {
    const mail = { ...base, html: { path: '/etc/passwd' }, text: undefined }
    expect(() => serializeMime(new MailComposer(mail).compile())).toThrow(/string or a Buffer/)
  })
})
