import { describe, expect, it } from 'vitest'
import { applyTracking } from '../../src/mail/tracking-html.js'

const clickUrl = (link: string) => `https://t.example/c?u=${encodeURIComponent(link)}`
const unsubscribe = 'https://mail.example/unsubscribe/tok'

describe('open and click tracking in HTML', () => {
  it('rewrites http(s) links, decoding entities in the original and encoding the new one', () => {
    const html =
      '<p><a class="btn" href="https://shop.example/p?a=1&amp;b=2">Buy</a> <a href=\'http://x.example\'>x</a></p>'
    expect(applyTracking(html, { clickUrl, keep: [] })).toBe(
      `<p><a class="btn" href="${clickUrl('https://shop.example/p?a=1&b=2').replace(/&/g, '&amp;')}">Buy</a> <a href="${clickUrl('http://x.example')}">x</a></p>`,
    )
  })

  it('never rewrites unsubscribe links, mailto:, tel: or anchors', () => {
    const html = `<a href="${unsubscribe}">Unsubscribe</a><a href="mailto:a@b.c">m</a><a href="tel:+1">t</a><a href="#top">top</a>`
    expect(applyTracking(html, { clickUrl, keep: [unsubscribe] })).toBe(html)
  })

  it('adds the open pixel before </body>, or at the end of a fragment', () => {
    const pixelUrl = 'https://t.example/o/tok'
    expect(applyTracking('<html><body><p>Hi</p></body></html>', { clickUrl, pixelUrl, keep: [] })).toMatch(
      /<p>Hi<\/p><img src="https:\/\/t\.example\/o\/tok" width="1" height="1" alt="" [^>]*\/><\/body><\/html>$/,
    )
    expect(applyTracking('<p>Hi</p>', { clickUrl, pixelUrl, keep: [] })).toMatch(
      /^<p>Hi<\/p><img src="https:\/\/t\.example\/o\/tok"/,
    )
  })
})
