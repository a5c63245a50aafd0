import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseSesNotification } from '../../src/mail/aws/ses-notifications.js'
import { type EmailStatus, emailStatuses, nextEmailStatus, statusOfFeedback } from '../../src/mail/email-status.js'

function feedback(name: string) {
  return parseSesNotification(readFileSync(new URL(`../fixtures/ses/${name}.json`, import.meta.url), 'utf8'))
}

function apply(start: EmailStatus, ...incoming: (EmailStatus | undefined)[]): EmailStatus {
  return incoming.reduce<EmailStatus>((status, next) => nextEmailStatus(status, next), start)
}

describe('email status precedence', () => {
  it('follows the normal life of an email forward', () => {
    expect(apply('QUEUED', 'SENDING', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED')).toBe('CLICKED')
  })

  it('never moves back when events arrive out of order', () => {
    expect(apply('QUEUED', 'OPENED', 'DELIVERED', 'SENT')).toBe('OPENED')
    expect(apply('CLICKED', 'OPENED')).toBe('CLICKED')
  })

  it('a late delivery, open or bounce never downgrades a complaint', () => {
    for (const late of emailStatuses) expect(nextEmailStatus('COMPLAINED', late), late).toBe('COMPLAINED')
  })

  it('a complaint beats every other status, including a bounce', () => {
    for (const current of emailStatuses) expect(nextEmailStatus(current, 'COMPLAINED'), current).toBe('COMPLAINED')
  })

  it('a permanent bounce beats delivery states, and stays against later delivery, opens and clicks', () => {
    for (const current of ['SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'FAILED'] as const) {
      expect(nextEmailStatus(current, 'BOUNCED'), current).toBe('BOUNCED')
    }
    expect(apply('BOUNCED', 'DELIVERED', 'OPENED', 'CLICKED', 'FAILED')).toBe('BOUNCED')
  })

  it('a send failure beats "sent", but evidence of delivery beats a failure', () => {
    expect(apply('SENDING', 'FAILED')).toBe('FAILED')
    expect(apply('SENT', 'FAILED')).toBe('FAILED')
    expect(apply('FAILED', 'SENT')).toBe('FAILED')
    expect(apply('FAILED', 'DELIVERED')).toBe('DELIVERED')
  })
})

describe('status reported by SES feedback', () => {
  it('maps each event kind to a status, and a transient bounce or delay to none', () => {
    expect(statusOfFeedback(feedback('event-send'))).toBe('SENT')
    expect(statusOfFeedback(feedback('event-delivery'))).toBe('DELIVERED')
    expect(statusOfFeedback(feedback('event-open'))).toBe('OPENED')
    expect(statusOfFeedback(feedback('event-click'))).toBe('CLICKED')
    expect(statusOfFeedback(feedback('event-bounce-permanent'))).toBe('BOUNCED')
    expect(statusOfFeedback(feedback('event-complaint'))).toBe('COMPLAINED')
    expect(statusOfFeedback(feedback('event-reject'))).toBe('FAILED')
    expect(statusOfFeedback(feedback('event-bounce-transient'))).toBeUndefined()
    expect(statusOfFeedback(feedback('event-delivery-delay'))).toBeUndefined()
    expect(statusOfFeedback(feedback('event-subscription'))).toBeUndefined()
  })

  it('a transient bounce leaves a delivered email delivered', () => {
    expect(nextEmailStatus('DELIVERED', statusOfFeedback(feedback('event-bounce-transient')))).toBe('DELIVERED')
  })

  it('a delivery reported after the complaint keeps the email complained', () => {
    const complained = nextEmailStatus('SENT', statusOfFeedback(feedback('event-complaint')))
    expect(nextEmailStatus(complained, statusOfFeedback(feedback('event-delivery')))).toBe('COMPLAINED')
  })
})
