import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseSesNotification } from '../../../src/mail/aws/ses-notifications.js'
import { verifySnsSignature } from '../../../src/mail/aws/sns.js'
import { createSnsSigner } from '../../helpers/sns-signer.js'

function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/ses/${name}.json`, import.meta.url), 'utf8')
}

const eventMessageId = 'EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000'
const sesTags = {
  'ses:configuration-set': ['ConfigSet'],
  'ses:source-ip': ['192.0.2.0'],
  'ses:from-domain': ['example.com'],
  'ses:caller-identity': ['ses_user'],
}

describe('SES event publishing notifications', () => {
  it('reads a permanent bounce with its affected recipients, sub-type, diagnostic and tags', () => {
    expect(parseSesNotification(fixture('event-bounce-permanent'))).toEqual({
      kind: 'bounce',
      providerMessageId: eventMessageId,
      recipients: ['recipient@example.com'],
      occurredAt: new Date('2017-08-05T00:41:02.669Z'),
      bounceType: 'Permanent',
      bounceSubType: 'General',
      diagnostic: 'smtp; 550 5.1.1 user unknown',
      tags: sesTags,
    })
  })

  it('reads a mailbox-full bounce as Transient', () => {
    expect(parseSesNotification(fixture('event-bounce-transient'))).toMatchObject({
      kind: 'bounce',
      bounceType: 'Transient',
      bounceSubType: 'MailboxFull',
    })
  })

  it('treats an Undetermined bounce as Transient, so nobody is unsubscribed on a guess', () => {
    const event = JSON.parse(fixture('event-bounce-permanent'))
    event.bounce.bounceType = 'Undetermined'
    event.bounce.bounceSubType = 'Undetermined'
    expect(parseSesNotification(event)).toMatchObject({ kind: 'bounce', bounceType: 'Transient' })
  })

  it('reads a complaint with its feedback type and only the complaining recipient', () => {
    expect(parseSesNotification(fixture('event-complaint'))).toEqual({
      kind: 'complaint',
      providerMessageId: eventMessageId,
      recipients: ['recipient@example.com'],
      occurredAt: new Date('2017-08-05T00:41:02.669Z'),
      complaintFeedbackType: 'abuse',
      userAgent: expect.stringContaining('Chrome/60'),
      tags: sesTags,
    })
  })

  it('reads send, delivery, open, click, delivery delay and reject with the time of the event', () => {
    expect(parseSesNotification(fixture('event-send'))).toMatchObject({
      kind: 'send',
      recipients: ['recipient@example.com'],
      occurredAt: new Date('2016-10-14T05:02:16.645Z'),
    })
    expect(parseSesNotification(fixture('event-delivery'))).toMatchObject({
      kind: 'delivery',
      recipients: ['recipient@example.com'],
      occurredAt: new Date('2016-10-19T23:21:04.133Z'),
      diagnostic: '250 2.6.0 Message received',
    })
    expect(parseSesNotification(fixture('event-open'))).toMatchObject({
      kind: 'open',
      occurredAt: new Date('2017-08-09T22:00:19.652Z'),
      ipAddress: '192.0.2.1',
      userAgent: expect.stringContaining('iPhone'),
    })
    expect(parseSesNotification(fixture('event-click'))).toMatchObject({
      kind: 'click',
      link: 'http://docs.aws.amazon.com/ses/latest/DeveloperGuide/send-email-smtp.html',
      occurredAt: new Date('2017-08-09T23:51:25.570Z'),
      ipAddress: '192.0.2.1',
    })
    expect(parseSesNotification(fixture('event-delivery-delay'))).toMatchObject({
      kind: 'delivery_delay',
      recipients: ['recipient@example.com'],
      delayType: 'TransientCommunicationFailure',
      diagnostic: 'smtp; 421 4.4.1 Unable to connect to remote host',
    })
    expect(parseSesNotification(fixture('event-reject'))).toMatchObject({
      kind: 'reject',
      occurredAt: new Date('2016-10-14T17:38:15.211Z'),
      diagnostic: 'Bad content',
    })
  })

  it('reports a rendering failure as a reject, since nothing was sent', () => {
    expect(parseSesNotification(fixture('event-rendering-failure'))).toMatchObject({
      kind: 'reject',
      diagnostic: expect.stringContaining('attributeName'),
    })
  })
})

describe('SES identity notifications (notificationType)', () => {
  it('reads a bounce, a complaint and a delivery, with no tags', () => {
    expect(parseSesNotification(fixture('notification-bounce'))).toEqual({
      kind: 'bounce',
      providerMessageId: '00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa0680-000000',
      recipients: ['jane@example.com'],
      occurredAt: new Date('2016-01-27T14:59:38.237Z'),
      bounceType: 'Permanent',
      bounceSubType: 'General',
      diagnostic: 'smtp; 550 5.1.1 <jane@example.com>... User',
      tags: {},
    })
    expect(parseSesNotification(fixture('notification-complaint'))).toMatchObject({
      kind: 'complaint',
      recipients: ['richard@example.com'],
      complaintFeedbackType: 'abuse',
      userAgent: 'AnyCompany Feedback Loop (V0.01)',
    })
    expect(parseSesNotification(fixture('notification-delivery'))).toMatchObject({
      kind: 'delivery',
      providerMessageId: '0000014644fe5ef6-9a483358-9170-4cb4-a269-f5dcdf415321-000000',
      recipients: ['success@simulator.amazonses.com'],
    })
  })
})

describe('input that is not feedback', () => {
  it('is ignored with a reason instead of throwing', () => {
    const bounce = JSON.parse(fixture('event-bounce-permanent'))
    const cases: unknown[] = [
      'not json',
      'null',
      '[]',
      42,
      { eventType: 'Bounce' },
      { ...bounce, bounce: { ...bounce.bounce, bounceType: 'Sideways' } },
      { ...bounce, bounce: { ...bounce.bounce, timestamp: 'yesterday' } },
      { ...bounce, mail: { ...bounce.mail, messageId: '' } },
      { notificationType: 'AmazonSnsSubscriptionSucceeded', message: 'You have successfully subscribed' },
      { eventType: 'toString', mail: bounce.mail },
      fixture('event-subscription'),
    ]
    for (const input of cases) {
      const result = parseSesNotification(input)
      expect(result.kind, JSON.stringify(input).slice(0, 80)).toBe('ignored')
      expect(result).toHaveProperty('reason', expect.any(String))
    }
  })

  it('accepts null for optional SES fields', () => {
    const complaint = JSON.parse(fixture('event-complaint'))
    complaint.complaint.userAgent = null
    complaint.complaint.complaintSubType = null
    const result = parseSesNotification(complaint)
    expect(result).toMatchObject({ kind: 'complaint' })
    expect(result).not.toHaveProperty('userAgent')
  })
})

describe('a signed SNS envelope from the test signer', () => {
  it('verifies and carries the SES event unchanged', async () => {
    const signer = createSnsSigner()
    const envelope = signer.notification(JSON.parse(fixture('event-click')))
    expect(await verifySnsSignature(envelope, signer.trust)).toBe(true)
    expect(parseSesNotification(envelope.Message)).toMatchObject({ kind: 'click', providerMessageId: eventMessageId })
  })
})
