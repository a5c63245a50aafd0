import { simpleParser } from 'mailparser'
import { describe, expect, it } from 'vitest'
import {
  buildMessage,
  composeMessageJob,
  type MessageSpec,
  PrivateKeyCache,
} from '../../../src/mail/outbound/compose.js'
import { subscriptionUrls } from '../../../src/mail/outbound/subscription-links.js'
import {
  clickUrl,
  legacyClickUrl,
  openPixelUrl,
  readClickToken,
  readOpenToken,
  trackedLinkId,
} from '../../../src/mail/outbound/tracking-links.js'
import { signLinkToken } from '../../../src/mail/signed-links.js'

const secret = 'test-secret-test-secret-test-secret-0123456789'
const publicUrl = 'https://mail.example.org/base/'
const emailId = '8d7f1c2e-1b7a-4f55-9a1e-3c2d1e0f9a8b'
const projectId = '2f0c9a1e-5d3b-4c7a-8e6f-1a2b3c4d5e6f'
const contactId = '6e5d4c3b-2a19-4876-9f0e-abcdefabcdef'
const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1)
const link = 'https://shop.example.com/p?a=1&b=2#top'

/** Every spelling of the token with one character changed (to its neighbour in the alphabet). */
function oneCharacterChanges(token: string): string[] {
  return [...token].map((character, index) => {
    const changed = character === 'A' ? 'B' : character === '_' ? '-' : 'A'
    return `${token.slice(0, index)}${changed}${token.slice(index + 1)}`
  })
}

describe('tracking tokens', () => {
  it('are short: the open token signs the email id, the click token the email id and a link id, not the link', () => {
    const linkId = trackedLinkId(projectId, link)
    const open = openPixelUrl(publicUrl, secret, emailId)
    const click = clickUrl(publicUrl, secret, emailId, linkId)
    expect(open).toMatch(/^https:\/\/mail\.example\.org\/base\/t\/open\/[\w-]{32}$/)
    expect(click).toMatch(/^https:\/\/mail\.example\.org\/base\/t\/click\/[\w-]{48}$/)
    expect(click).not.toContain('shop')
    expect(readOpenToken(secret, tokenOf(open))).toBe(emailId)
    expect(readClickToken(secret, tokenOf(click))).toEqual({ emailId, linkId })
  })

  it('name a link by its project and the link itself: the same in every email of the project, another elsewhere', () => {
    expect(trackedLinkId(projectId, link)).toEqual(trackedLinkId(projectId, link))
    expect(trackedLinkId(projectId, link)).toHaveLength(12)
    expect(trackedLinkId(contactId, link)).not.toEqual(trackedLinkId(projectId, link))
    expect(trackedLinkId(projectId, `${link}x`)).not.toEqual(trackedLinkId(projectId, link))
  })

  it('are refused with any character changed, re-spelled, cut, for the other purpose or with another secret', () => {
    const open = tokenOf(openPixelUrl(publicUrl, secret, emailId))
    const click = tokenOf(clickUrl(publicUrl, secret, emailId, trackedLinkId(projectId, link)))
    for (const forged of oneCharacterChanges(click)) expect(readClickToken(secret, forged)).toBeUndefined()
    for (const forged of oneCharacterChanges(open)) expect(readOpenToken(secret, forged)).toBeUndefined()
    for (const forged of [
      `${click}=`,
      `${click}A`,
      click.slice(0, -1),
      `+${click.slice(1)}`,
      `${click.slice(0, -1)}/`,
      '',
      '.',
    ]) {
      expect(readClickToken(secret, forged)).toBeUndefined()
    }
    expect(readClickToken(secret, open)).toBeUndefined()
    expect(readOpenToken(secret, click)).toBeUndefined()
    expect(readOpenToken(`${secret}x`, open)).toBeUndefined()
    expect(readClickToken(`${secret}x`, click)).toBeUndefined()
  })
})

describe('tracking tokens of the former format (mail already delivered)', () => {
  it('still give the email (open) and the link as written with, for the redirect, the URL as a browser requests it', () => {
    expect(readOpenToken(secret, signLinkToken(secret, 'open', [emailId]))).toBe(emailId)
    const written = 'https://shop.example.com/find?q=<x> "y"&lang=日'
    expect(readClickToken(secret, tokenOf(legacyClickUrl(publicUrl, secret, emailId, written)))).toEqual({
      emailId,
      target: { link: written, location: 'https://shop.example.com/find?q=%3Cx%3E%20%22y%22&lang=%E6%97%A5' },
    })
  })

  it('are refused when minted for the other purpose, with another secret, or for a non-http link', () => {
    const open = signLinkToken(secret, 'open', [emailId])
    const click = tokenOf(legacyClickUrl(publicUrl, secret, emailId, 'https://example.com'))
    expect(readClickToken(secret, open)).toBeUndefined()
    expect(readOpenToken(secret, click)).toBeUndefined()
    expect(readOpenToken(`${secret}x`, open)).toBeUndefined()
    for (const target of ['javascript:alert(1)', 'data:text/html,x', '//evil.example', 'https://not a host/']) {
      expect(readClickToken(secret, signLinkToken(secret, 'click', [emailId, target]))).toBeUndefined()
    }
    expect(readClickToken(secret, signLinkToken(secret, 'click', [emailId]))).toBeUndefined()
  })
})

describe('composing a tracked message', () => {
  const urls = subscriptionUrls(publicUrl, secret, { projectId, contactId })
  const article = `<p>${'Words of a newsletter long enough to carry the pixel. '.repeat(60)}</p>`
  const html = (body: string) =>
    `<html><body><p><a href="https://shop.example.com/sale">Sale</a> <a href="https://shop.example.com/sale">Again</a></p>${body}<p><a href="${urls.unsubscribeUrl}">Unsubscribe</a></p></body></html>`
  const message: MessageSpec = {
    messageId: `${emailId}@mail.example.test`,
    from: { email: 'news@mail.example.test' },
    to: { email: 'reader@example.org' },
    subject: 'Sale',
    html: html(article),
  }
  const tracking = { publicUrl, secret, emailId, projectId }
  const saleUrl = clickUrl(publicUrl, secret, emailId, trackedLinkId(projectId, 'https://shop.example.com/sale'))

  it('rewrites the links of both parts, adds the pixel to the HTML, leaves the subscription link, and is the same on every retry', async () => {
    const first = buildMessage({ message, tracking })
    const parsed = await simpleParser(first)
    const received = String(parsed.html)
    expect(received.split(`href="${saleUrl}"`)).toHaveLength(3)
    expect(received).toContain(`src="${openPixelUrl(publicUrl, secret, emailId)}"`)
    expect(received).toContain(`href="${urls.unsubscribeUrl}"`)
    // The text alternative carries the same click URLs (a filter counts each link in both parts), never the pixel's.
    expect(parsed.text).toMatch(new RegExp(`Sale\\s+\\[${escapeRegExp(saleUrl)}\\]`))
    expect(parsed.text).not.toContain('https://shop.example.com/sale')
    expect(parsed.text).not.toContain('/t/open/')
    expect(parsed.text).toContain(urls.unsubscribeUrl)

    const again = await simpleParser(buildMessage({ message, tracking }))
    expect(again.html).toBe(parsed.html)
  })

  it('hands back each link its click URLs name once, to be stored before the message leaves', async () => {
    const built = await composeMessageJob({ message, tracking }, new PrivateKeyCache())
    expect(built.links).toEqual([
      {
        id: trackedLinkId(projectId, 'https://shop.example.com/sale').toString('base64url'),
        url: 'https://shop.example.com/sale',
      },
    ])
    expect((await composeMessageJob({ message }, new PrivateKeyCache())).links).toBeUndefined()
  })

  it('a short email gets its links tracked but no pixel', async () => {
    const parsed = await simpleParser(buildMessage({ message: { ...message, html: html('<p>Hi</p>') }, tracking }))
    expect(String(parsed.html)).toContain(`href="${saleUrl}"`)
    expect(String(parsed.html)).not.toContain('/t/open/')
  })

  it('without tracking the HTML is as given', async () => {
    const parsed = await simpleParser(buildMessage({ message }))
    expect(String(parsed.html)).not.toContain('/t/')
  })
})

/** The text part wraps a long link onto its own line: the link's words and its target, any white space between. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
