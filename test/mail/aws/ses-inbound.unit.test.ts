import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseSesInbound } from '../../../src/mail/aws/ses-inbound.js'

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../fixtures/ses/${name}.json`, import.meta.url), 'utf8'))
}

describe('parseSesInbound', () => {
  it("reads SES's SNS-action example into the email.received fields", async () => {
    const parsed = await parseSesInbound(JSON.stringify(fixture('received-sns-action')))
    expect(parsed).toEqual({
      kind: 'received',
      message: {
        messageId: 'd6iitobk75ur44p8kdnnp7g2n800',
        from: '61967230-7A45-4A9D-BEC9-87CBCF2211C9@example.com',
        fromHeader: 'sender@example.com',
        to: 'recipient@example.com',
        subject: 'Example subject',
        timestamp: '2015-09-11T20:32:33.936Z',
        recipients: ['recipient@example.com'],
        hasContent: true,
        body: '<p>Example content</p>',
        spamVerdict: 'PASS',
        virusVerdict: 'PASS',
        spfVerdict: 'PASS',
        dkimVerdict: 'PASS',
        // The documented example predates dmarcVerdict: no check was reported.
        dmarcVerdict: 'DISABLED',
        processingTimeMillis: 222,
      },
    })
  })

  it('a notification without content (an S3 action) has no body', async () => {
    const parsed = await parseSesInbound(fixture('received-s3-action'))
    expect(parsed).toMatchObject({
      kind: 'received',
      message: { hasContent: false, body: '', processingTimeMillis: 406 },
    })
  })

  it('decodes BASE64 content and maps every verdict, unknown values to PROCESSING_FAILED', async () => {
    const notification = fixture('received-sns-action')
    const raw =
      'From: "Ann" <ann@example.org>\r\nSubject: Hi\r\nContent-Type: text/html\r\n\r\n<p>Hello <i>there</i></p>\r\n'
    const receipt = notification.receipt as Record<string, unknown>
    const parsed = await parseSesInbound({
      ...notification,
      content: Buffer.from(raw).toString('base64'),
      receipt: {
        ...receipt,
        action: { type: 'SNS', encoding: 'BASE64' },
        spamVerdict: { status: 'FAIL' },
        virusVerdict: { status: 'GRAY' },
        spfVerdict: { status: 'PROCESSING_FAILED' },
        dkimVerdict: { status: 'SOMETHING_NEW' },
        dmarcVerdict: { status: 'FAIL' },
      },
    })
    expect(parsed).toMatchObject({
      kind: 'received',
      message: {
        body: expect.stringContaining('<p>Hello <i>there</i></p>'),
        spamVerdict: 'FAIL',
        virusVerdict: 'GRAY',
        spfVerdict: 'PROCESSING_FAILED',
        dkimVerdict: 'PROCESSING_FAILED',
        dmarcVerdict: 'FAIL',
      },
    })
  })

  it('ignores, never throws on, anything else', async () => {
    const received = fixture('received-sns-action')
    const cases: unknown[] = [
      'not json {',
      '42',
      null,
      fixture('notification-bounce'),
      fixture('event-delivery'),
      { ...received, mail: { ...(received.mail as object), messageId: '' } },
      { ...received, receipt: { ...(received.receipt as object), recipients: [] } },
      { ...received, mail: { ...(received.mail as object), timestamp: 'yesterday' } },
    ]
    for (const message of cases) {
      expect(await parseSesInbound(message)).toEqual({ kind: 'ignored', reason: expect.any(String) })
    }
  })
})
