import { describe, expect, it } from 'vitest'
import {
  listUnsubscribeHeaders,
  readUnsubscribeMailboxToken,
  unsubscribeMailboxToken,
  unsubscribeTokenOfAddress,
} from '../../../src/mail/outbound/list-unsubscribe.js'
import { readSubscriptionToken, subscriptionUrls } from '../../../src/mail/outbound/subscription-links.js'
import { signLinkToken, signPayload } from '../../../src/mail/signed-links.js'

const secret = 'a-secret-of-more-than-thirty-two-characters'
const subject = { projectId: '0b6f8e42-5a0c-4d1e-9f3a-2c7d8e9f0a1b', contactId: '7e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b' }

function tokenOf(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1)
}

describe('subscription URLs', () => {
  it('round-trip the project and contact for each purpose, under PUBLIC_URL with or without a path', () => {
    for (const publicUrl of ['https://mail.example.com', 'https://example.com/mailroom/']) {
      const urls = subscriptionUrls(publicUrl, secret, subject)
      const base = publicUrl.replace(/\/$/, '')
      expect(urls.unsubscribeUrl).toMatch(new RegExp(`^${base}/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`))
      expect(urls.subscribeUrl.startsWith(`${base}/subscribe/`)).toBe(true)
      expect(urls.manageUrl.startsWith(`${base}/manage/`)).toBe(true)
      expect(readSubscriptionToken(secret, 'unsubscribe', tokenOf(urls.unsubscribeUrl))).toEqual(subject)
      expect(readSubscriptionToken(secret, 'subscribe', tokenOf(urls.subscribeUrl))).toEqual(subject)
      expect(readSubscriptionToken(secret, 'manage', tokenOf(urls.manageUrl))).toEqual(subject)
    }
  })

  it('reject a token that was altered, minted for another purpose or signed with another secret', () => {
    const { unsubscribeUrl, manageUrl } = subscriptionUrls('https://mail.example.com', secret, subject)
    const token = tokenOf(unsubscribeUrl)
    const [, mac] = token.split('.')
    const otherContact = Buffer.from(`${subject.projectId}\nsomeone-else`).toString('base64url')
    expect(readSubscriptionToken(secret, 'unsubscribe', `${otherContact}.${mac}`)).toBeUndefined()
    expect(readSubscriptionToken(secret, 'unsubscribe', tokenOf(manageUrl))).toBeUndefined()
    expect(readSubscriptionToken(secret, 'subscribe', token)).toBeUndefined()
    expect(readSubscriptionToken(`${secret}?`, 'unsubscribe', token)).toBeUndefined()
    expect(readSubscriptionToken(secret, 'unsubscribe', 'garbage')).toBeUndefined()
  })

  it('round-trip the campaign of campaign mail beside the project and contact', () => {
    const ofCampaign = { ...subject, campaignId: '3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a' }
    const { unsubscribeUrl } = subscriptionUrls('https://mail.example.com', secret, ofCampaign)
    expect(readSubscriptionToken(secret, 'unsubscribe', tokenOf(unsubscribeUrl))).toEqual(ofCampaign)
  })

  it('name the email alone when it is known, in a shorter link', () => {
    const emailId = '019ad0c4-5b6e-7f80-9a1b-2c3d4e5f6a7b'
    const { unsubscribeUrl } = subscriptionUrls('https://mail.example.com', secret, { ...subject, emailId })
    expect(readSubscriptionToken(secret, 'unsubscribe', tokenOf(unsubscribeUrl))).toEqual({ emailId })
    const { unsubscribeUrl: ofContact } = subscriptionUrls('https://mail.example.com', secret, subject)
    expect(unsubscribeUrl.length).toBeLessThan(ofContact.length)
  })

  it('reject a validly signed token that names neither an email nor one project, one contact and at most one campaign', () => {
    for (const parts of [
      ['not-an-email-id'],
      [subject.projectId, subject.contactId, 'extra'],
      [subject.projectId, subject.contactId, ''],
      [subject.projectId, subject.contactId, subject.projectId, subject.contactId],
      ['', subject.contactId],
    ]) {
      expect(readSubscriptionToken(secret, 'unsubscribe', signLinkToken(secret, 'unsubscribe', parts))).toBeUndefined()
    }
  })
})

describe('List-Unsubscribe headers', () => {
  it('offer one-click https unsubscribe, and mailto only with an inbound domain', () => {
    const withoutInbound = listUnsubscribeHeaders({ publicUrl: 'https://mail.example.com', secret, subject })
    const { unsubscribeUrl } = subscriptionUrls('https://mail.example.com', secret, subject)
    expect(withoutInbound).toEqual({
      'List-Unsubscribe': `<${unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    })

    const withInbound = listUnsubscribeHeaders({
      publicUrl: 'https://mail.example.com',
      secret,
      subject,
      inboundDomain: 'inbound.example.com',
    })
    const token = unsubscribeMailboxToken(secret, subject.contactId)
    expect(withInbound['List-Unsubscribe']).toBe(
      `<${unsubscribeUrl}>, <mailto:unsubscribe+${token}@inbound.example.com>`,
    )
    // RFC 5321 allows a local part of 64 octets; longer ones are refused or mangled by some servers.
    expect(`unsubscribe+${token}`.length).toBeLessThanOrEqual(64)
    expect(withInbound['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click')
  })

  it('the mailto address gives back a token that identifies the contact', () => {
    const header = listUnsubscribeHeaders({
      publicUrl: 'https://mail.example.com',
      secret,
      subject,
      inboundDomain: 'inbound.example.com',
    })['List-Unsubscribe']
    const address = header?.match(/<mailto:([^>]+)>/)?.[1] ?? ''
    const token = unsubscribeTokenOfAddress(address, 'INBOUND.example.com')
    expect(token && readUnsubscribeMailboxToken(secret, token)).toBe(subject.contactId)
    expect(unsubscribeTokenOfAddress(address, 'other.example.com')).toBeUndefined()
    expect(unsubscribeTokenOfAddress('unsubscribe+@inbound.example.com', 'inbound.example.com')).toBeUndefined()
    expect(unsubscribeTokenOfAddress('support@inbound.example.com', 'inbound.example.com')).toBeUndefined()
  })

  it('a mailbox token is refused when altered, signed with another secret or minted for another purpose', () => {
    const token = unsubscribeMailboxToken(secret, subject.contactId)
    const [, mac] = token.split('.')
    const otherContact = Buffer.from(subject.projectId.replaceAll('-', ''), 'hex').toString('base64url')
    expect(readUnsubscribeMailboxToken(secret, `${otherContact}.${mac}`)).toBeUndefined()
    expect(readUnsubscribeMailboxToken(`${secret}?`, token)).toBeUndefined()
    const { unsubscribeUrl } = subscriptionUrls('https://mail.example.com', secret, subject)
    expect(readUnsubscribeMailboxToken(secret, tokenOf(unsubscribeUrl))).toBeUndefined()
    expect(readSubscriptionToken(secret, 'unsubscribe', token)).toBeUndefined()
    // Signed, but not 16 bytes: not a contact id.
    expect(
      readUnsubscribeMailboxToken(secret, signPayload(secret, 'unsubscribe-mailbox', Buffer.alloc(15))),
    ).toBeUndefined()
  })
})
