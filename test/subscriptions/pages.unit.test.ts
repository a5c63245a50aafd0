import { describe, expect, it } from 'vitest'
import {
  errorPage,
  invalidLinkPage,
  managePage,
  resubscribedPage,
  subscribePage,
  unsubscribedPage,
  unsubscribePage,
} from '../../src/modules/subscriptions/pages.js'

const contact = { projectName: 'Acme Newsletter', email: 'jane@example.com' }
const actionUrl = 'https://mail.example.com/unsubscribe/abc.def'

function forms(html: string): { action: string; method: string }[] {
  return [...html.matchAll(/<form method="([^"]+)" action="([^"]*)"/g)].map(([, method = '', action = '']) => ({
    method,
    action,
  }))
}

const pages: [string, string, { action: string; method: string }[]][] = [
  ['confirm unsubscribe', unsubscribePage({ ...contact, actionUrl }), [{ method: 'post', action: actionUrl }]],
  ['unsubscribed', unsubscribedPage(contact), []],
  [
    'unsubscribed, with a way back',
    unsubscribedPage({ ...contact, resubscribeUrl: 'https://mail.example.com/subscribe/x.y' }),
    [{ method: 'post', action: 'https://mail.example.com/subscribe/x.y' }],
  ],
  [
    'confirm subscribe',
    subscribePage({ ...contact, actionUrl: 'https://mail.example.com/subscribe/x.y' }),
    [{ method: 'post', action: 'https://mail.example.com/subscribe/x.y' }],
  ],
  ['resubscribed', resubscribedPage(contact), []],
  [
    'manage',
    managePage({ ...contact, subscribed: true, actionUrl: 'https://mail.example.com/manage/m.n' }),
    [{ method: 'post', action: 'https://mail.example.com/manage/m.n' }],
  ],
  ['invalid link', invalidLinkPage(), []],
  ['error', errorPage(), []],
]

describe('subscription pages', () => {
  it.each(pages)('%s: has a language, a title, one main heading and the expected forms', (_name, html, expected) => {
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).toContain('<html lang="en">')
    expect(html).toMatch(/<title>[^<]+<\/title>/)
    expect(html.match(/<h1>[^<]+<\/h1>/g)).toHaveLength(1)
    expect(html).toContain('<meta name="viewport"')
    expect(html).not.toMatch(/<script|<link|src=/i)
    expect(forms(html)).toEqual(expected)
  })

  it('escapes the project name, email and URLs wherever they appear', () => {
    const hostile = {
      projectName: '<script>alert(1)</script> & Co',
      email: '"><script>alert(2)</script>@example.com',
      actionUrl: 'https://mail.example.com/unsubscribe/a"><script>alert(3)</script>',
    }
    for (const html of [
      unsubscribePage(hostile),
      unsubscribedPage({ ...hostile, resubscribeUrl: hostile.actionUrl }),
      subscribePage(hostile),
      resubscribedPage(hostile),
      managePage({ ...hostile, subscribed: false }),
    ]) {
      expect(html).not.toContain('<script>')
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co')
      expect(html).toContain('&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;@example.com')
    }
    expect(unsubscribePage(hostile)).toContain(
      'action="https://mail.example.com/unsubscribe/a&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"',
    )
  })

  it('the manage page offers the opposite of the current status', () => {
    const subscribed = managePage({ ...contact, subscribed: true, actionUrl })
    expect(subscribed).toContain('You are subscribed')
    expect(subscribed).toContain('<input type="hidden" name="subscribed" value="false">')
    expect(subscribed).toContain('>Unsubscribe</button>')

    const unsubscribed = managePage({ ...contact, subscribed: false, actionUrl })
    expect(unsubscribed).toContain('You are not subscribed')
    expect(unsubscribed).toContain('<input type="hidden" name="subscribed" value="true">')
    expect(unsubscribed).toContain('>Subscribe</button>')
  })

  it('the invalid link page tells nothing about why', () => {
    const html = invalidLinkPage()
    expect(html).toContain('This link is not valid')
    expect(html).not.toMatch(/token|signature|expired|contact|error/i)
  })
})
