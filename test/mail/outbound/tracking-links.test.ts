import { simpleParser } from 'mailparser'
import { describe, expect, it } from 'vitest'
import { buildMessage, type MessageSpec } from '../../../src/mail/outbound/compose.js'
import { subscriptionUrls } from '../../../src/mail/outbound/subscription-links.js'
import { clickUrl, openPixelUrl, readClickToken, readOpenToken } from '../../../src/mail/outbound/tracking-links.js'
import { signLinkToken } from '../../../src/mail/signed-links.js'

const secret = 'test-secret-test-secret-test-secret-0123456789'
const publicUrl = 'https://mail.example.org/base/'
const emailId = '8d7f1c2e-1b7a-4f55-9a1e-3c2d1e0f9a8b'
const projectId = '2f0c9a1e-5d3b-4c7a-8e6f-1a2b3c4d5e6f'
const contactId = '6e5d4c3b-2a19-4876-9f0e-abcdefabcdef'
const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1)

describe('tracking tokens', () => {
  it('carry the email id (open) and the email id with the original link (click), under PUBLIC_URL with its path', () => {
    const link = 'https://shop.example.com/p?a=1&b=2#top'
    const open = openPixelUrl(publicUrl, secret, emailId)
    const click = clickUrl(publicUrl, secret, emailId, link)
    expect(open).toMatch(/^https:\/\/mail\.example\.org\/base\/t\/open\/[\w-]+\.[\w-]+$/)
    expect(click).toMatch(/^https:\/\/mail\.example\.org\/base\/t\/click\/[\w-]+\.[\w-]+$/)
    expect(readOpenToken(secret, tokenOf(open))).toBe(emailId)
    expect(readClickToken(secret, tokenOf(click))).toEqual({ emailId, link, location: link })
  })

  it('give the link as written and, for the redirect, the URL as a browser requests it', () => {
    const link = 'https://shop.example.com/find?q=<x> "y"&lang=日'
    const token = tokenOf(clickUrl(publicUrl, secret, emailId, link))
    expect(readClickToken(secret, token)).toEqual({
      emailId,
      link,
      location: 'https://shop.example.com/find?q=%3Cx%3E%20%22y%22&lang=%E6%97%A5',
    })
    expect(readClickToken(secret, signLinkToken(secret, 'click', [emailId, 'https://not a host/']))).toBeUndefined()
  })

  it('are refused when minted for the other purpose, with another secret, or for a non-http link', () => {
    const open = tokenOf(openPixelUrl(publicUrl, secret, emailId))
    const click = tokenOf(clickUrl(publicUrl, secret, emailId, 'https://example.com'))
    expect(readClickToken(secret, open)).toBeUndefined()
    expect(readOpenToken(secret, click)).toBeUndefined()
    expect(readOpenToken(`${secret}x`, open)).toBeUndefined()
    for (const link of ['javascript:alert(1)', 'data:text/html,x', '//evil.example', 'ftp://example.com']) {
      expect(readClickToken(secret, signLinkToken(secret, 'click', [emailId, link]))).toBeUndefined()
    }
    expect(readClickToken(secret, signLinkToken(secret, 'click', [emailId]))).toBeUndefined()
  })
})

describe('composing a tracked message', () => {
  const urls = subscriptionUrls(publicUrl, secret, { projectId, contactId })
  const message: MessageSpec = {
    messageId: `${emailId}@mail.example.test`,
    from: { email: 'news@mail.example.test' },
    to: { email: 'reader@example.org' },
    subject: 'Sale',
    html: `<html><body><p><a href="https://shop.example.com/sale">Sale</a></p><p><a href="${urls.unsubscribeUrl}">Unsubscribe</a></p></body></html>`,
  }
  const tracking = { publicUrl, secret, emailId, projectId, contactId }

  it('rewrites only the HTML part, adds the pixel, leaves the subscription link, and is the same on every retry', async () => {
    const first = buildMessage({ message, tracking })
    const parsed = await simpleParser(first)
    const html = String(parsed.html)
    expect(html).toContain(`href="${clickUrl(publicUrl, secret, emailId, 'https://shop.example.com/sale')}"`)
    expect(html).toContain(`src="${openPixelUrl(publicUrl, secret, emailId)}"`)
    expect(html).toContain(`href="${urls.unsubscribeUrl}"`)
    expect(parsed.text).toContain('https://shop.example.com/sale')
    expect(parsed.text).not.toContain('/t/')

    const again = await simpleParser(buildMessage({ message, tracking }))
    expect(again.html).toBe(parsed.html)
  })

  it('without tracking the HTML is as given', async () => {
    const parsed = await simpleParser(buildMessage({ message }))
    expect(String(parsed.html)).not.toContain('/t/')
  })
})
