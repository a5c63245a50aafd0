import { randomBytes } from 'node:crypto'
import { simpleParser } from 'mailparser'
import MailComposer from 'nodemailer/lib/mail-composer'
import type Mail from 'nodemailer/lib/mailer'
import { describe, expect, it } from 'vitest'
import type { TrackingOptions } from '../../../src/mail/outbound/tracking-html.js'
import { trackHtmlParts } from '../../../src/mail/outbound/tracking-mime.js'

const options: TrackingOptions = {
  clickUrl: (link) => `https://t.example/click?u=${encodeURIComponent(link)}`,
  pixelUrl: 'https://t.example/open/1',
  keep: ['https://t.example/unsubscribe/'],
}

/** Enough text that the HTML carries the open pixel (over 3,200 characters). */
const article = `<p>${'Words. '.repeat(500)}</p>`

async function compose(mail: Mail.Options): Promise<Buffer> {
  const built = await new MailComposer(mail).compile().build()
  return Buffer.from(built.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1')
}

/** A part of a raw message, from its Content-Type header to the boundary after it. */
function partOf(raw: Buffer, contentType: string): string {
  const text = raw.toString('latin1')
  const start = text.indexOf(`Content-Type: ${contentType}`)
  expect(start).toBeGreaterThan(-1)
  return text.slice(start, text.indexOf('\r\n--', start))
}

describe('tracking in a finished MIME message', () => {
  it('rewrites the HTML part and keeps the text part, the attachment and the headers byte for byte', async () => {
    const pdf = randomBytes(4_000)
    const raw = await compose({
      from: 'a@x.example',
      to: 'b@y.example',
      subject: 'Tracked',
      headers: { 'X-Ref': '1' },
      text: 'Read https://shop.example/a ünïcode',
      html: `<html><body><p>Read <a href="https://shop.example/a?x=1&amp;y=2">this</a> ünïcode</p>${article}</body></html>`,
      attachments: [{ filename: 'a.pdf', content: pdf, contentType: 'application/pdf' }],
    })

    const tracked = await trackHtmlParts(raw, options)

    const parsed = await simpleParser(tracked)
    expect(parsed.html).toBe(
      '<html><body><p>Read <a href="https://t.example/click?u=https%3A%2F%2Fshop.example%2Fa%3Fx%3D1%26y%3D2">this</a> ünïcode</p>' +
        article +
        '<a href="https://t.example/open/1" aria-hidden="true" tabindex="-1"><img src="https://t.example/open/1" width="1" height="1" alt="" style="display:block;border:0" /></a></body></html>',
    )
    expect(partOf(tracked, 'text/plain')).toBe(partOf(raw, 'text/plain'))
    expect(partOf(tracked, 'application/pdf')).toBe(partOf(raw, 'application/pdf'))
    const head = (message: Buffer) => message.subarray(0, message.indexOf('\r\n\r\n')).toString('latin1')
    expect(head(tracked)).toBe(head(raw))
    expect(parsed.attachments[0]?.content.equals(pdf)).toBe(true)
    // Still CRLF throughout: a bare LF would be rewritten on the way and break the DKIM body hash.
    expect(tracked.toString('latin1')).not.toMatch(/(?<!\r)\n/)
  })

  it('tracks a single-part HTML message in base64 and in 7bit, which becomes quoted-printable', async () => {
    const html = `<p><a href="https://shop.example/b">b</a></p>${article}`
    for (const encoding of ['base64', '7bit'] as const) {
      const raw = await compose({ from: 'a@x.example', to: 'b@y.example', html, textEncoding: 'base64' })
      const source =
        encoding === 'base64'
          ? raw
          : Buffer.from(
              `From: a@x.example\r\nTo: b@y.example\r\nContent-Type: text/html; charset=us-ascii\r\nContent-Transfer-Encoding: 7bit\r\n\r\n${html}\r\n`,
            )
      const tracked = await trackHtmlParts(source, options)
      const parsed = await simpleParser(tracked)
      expect(parsed.html).toContain('href="https://t.example/click?u=https%3A%2F%2Fshop.example%2Fb"')
      expect(parsed.html).toContain('https://t.example/open/1')
      if (encoding === '7bit') {
        expect(tracked.toString('latin1')).toMatch(/^Content-Transfer-Encoding: quoted-printable$/m)
      }
      expect(tracked.toString('latin1')).not.toMatch(/(?<!\r)\n/)
      expect(
        tracked
          .toString('latin1')
          .split('\r\n')
          .every((line) => line.length <= 998),
      ).toBe(true)
    }
  })

  it('leaves an attached .html file, an attached message and a part in a charset it cannot edit safely alone', async () => {
    const forwarded = Buffer.from(
      'From: c@z.example\r\nContent-Type: text/html\r\n\r\n<a href="https://forwarded.example/">f</a>\r\n',
    )
    const raw = await compose({
      from: 'a@x.example',
      to: 'b@y.example',
      text: 'see attached',
      attachments: [
        { filename: 'page.html', content: '<a href="https://file.example/">x</a>', contentType: 'text/html' },
        { filename: 'fwd.eml', content: forwarded, contentType: 'message/rfc822' },
        {
          content: Buffer.from('<a href="https://jis.example/">x</a>'),
          contentType: 'text/html; charset=iso-2022-jp',
          contentDisposition: 'inline',
        },
      ],
    })
    const tracked = await trackHtmlParts(raw, options)
    expect(tracked.equals(raw)).toBe(true)
  })
})
