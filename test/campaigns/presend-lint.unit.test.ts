import { describe, expect, it } from 'vitest'
import {
  type ContentToLint,
  gmailClipBytes,
  lintContent,
  nearClipBytes,
} from '../../src/modules/campaigns/presend/content-lint.js'
import type { PresendFinding } from '../../src/modules/campaigns/presend/findings.js'

/** Enough words for a text part anyone can read. */
const prose = '<p>Our spring range is in: linen shirts, light jackets and the new canvas bags, all made to last.</p>'
const unsubscribe = '<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>'

/** Content that passes every check, so each test changes only what it is about. */
function clean(overrides: Partial<ContentToLint> = {}): ContentToLint {
  return {
    subject: 'Spring is here',
    body: `<html><body><h1>Hello {{ firstName ?? "there" }}</h1>${prose}${unsubscribe}</body></html>`,
    unsubscribeLink: 'error',
    oneClickBaseUrl: 'https://mail.example.com',
    ...overrides,
  }
}

const codes = (findings: PresendFinding[]) => findings.map((item) => `${item.severity}:${item.code}`)
const only = (code: string, findings: PresendFinding[]) => findings.filter((item) => item.code === code)

describe('pre-send lint: each finding', () => {
  it('finds nothing in clean content', () => {
    expect(lintContent(clean())).toEqual([])
  })

  it('unsubscribe_link_missing: an error for a marketing campaign, a warning where nothing blocks, none when not required', () => {
    const body = `<h1>Hello</h1>${prose}`
    expect(lintContent(clean({ body }))).toEqual([
      {
        code: 'unsubscribe_link_missing',
        severity: 'error',
        field: 'body',
        message: expect.stringContaining('{{ unsubscribeUrl }}'),
      },
    ])
    expect(codes(lintContent(clean({ body, unsubscribeLink: 'warning' })))).toEqual([
      'warning:unsubscribe_link_missing',
    ])
    expect(lintContent(clean({ body, unsubscribeLink: false }))).toEqual([])
  })

  it('unsubscribe_link_missing: the manage link, and a link in the text, count; one in a comment does not', () => {
    const link = (markup: string) => codes(lintContent(clean({ body: `${prose}${markup}` })))
    expect(link('<a href="{{manageUrl}}">Preferences</a>')).toEqual([])
    expect(link('<p>Unsubscribe: {{- unsubscribeUrl }}</p>')).toEqual([])
    expect(link('<!-- <a href="{{ unsubscribeUrl }}">Unsubscribe</a> -->')).toEqual(['error:unsubscribe_link_missing'])
    expect(link('<a href="https://example.com/unsubscribe">Unsubscribe</a>')).toEqual([
      'error:unsubscribe_link_missing',
    ])
  })

  it('one_click_not_https: List-Unsubscribe over http is not honoured; no finding without the headers', () => {
    expect(lintContent(clean({ oneClickBaseUrl: 'http://localhost:3000' }))).toEqual([
      {
        code: 'one_click_not_https',
        severity: 'warning',
        field: 'headers.List-Unsubscribe',
        message: expect.stringContaining('http://localhost:3000'),
      },
    ])
    expect(lintContent(clean({ oneClickBaseUrl: undefined }))).toEqual([])
  })

  it('text_part_empty: a body of images and markup only is an error', () => {
    const body = `<table><tr><td><img src="https://cdn.example.com/hero.png" alt=""></td></tr></table>${unsubscribe.replace('Unsubscribe', '')}`
    expect(codes(lintContent(clean({ body })))).toEqual(['error:text_part_empty'])
    // Text in the head or a style sheet never reaches the reader.
    const hidden = `<html><head><title>News of the week for all</title><style>p { color: red }</style></head><body><a href="{{ unsubscribeUrl }}"></a></body></html>`
    expect(codes(lintContent(clean({ body: hidden })))).toEqual(['error:text_part_empty'])
  })

  it('text_part_thin: a few words, or little text beside images', () => {
    const few = lintContent(clean({ body: `<p>Hi {{ firstName }}</p>${unsubscribe}` }))
    expect(codes(few)).toEqual(['warning:text_part_thin'])
    expect(few[0]?.message).toContain('3 words')
    const images = `${prose}<img src="https://cdn.example.com/a.png" alt="A shirt">${unsubscribe}`
    const thin = lintContent(clean({ body: images }))
    expect(codes(thin)).toEqual(['warning:text_part_thin'])
    expect(thin[0]?.message).toContain('1 image and')
    // Liquid tags are not text.
    const tags = `{% if plan %}{% for item in items %}{% endfor %}{% endif %}${unsubscribe}<p>Hi</p>`
    expect(lintContent(clean({ body: tags }))[0]?.message).toContain('2 words')
  })

  it('html_too_large: past the clip limit an error; html_near_clip_limit: close to it a warning', () => {
    const padded = (bytes: number) => {
      const body = clean().body
      return `${body}<!--${'x'.repeat(bytes - Buffer.byteLength(body) - 7)}-->`
    }
    expect(Buffer.byteLength(padded(gmailClipBytes + 1))).toBe(gmailClipBytes + 1)
    expect(lintContent(clean({ body: padded(gmailClipBytes + 1) }))).toEqual([
      { code: 'html_too_large', severity: 'error', field: 'body', message: expect.stringContaining('102.0 kB') },
    ])
    expect(codes(lintContent(clean({ body: padded(gmailClipBytes) })))).toEqual(['warning:html_near_clip_limit'])
    expect(codes(lintContent(clean({ body: padded(nearClipBytes) })))).toEqual([])
    // Bytes, not characters: 40,000 euro signs are 120 kB.
    expect(codes(lintContent(clean({ body: `${clean().body}<p>${'€'.repeat(40_000)}</p>` })))).toEqual([
      'error:html_too_large',
    ])
  })

  it('html_unparseable: a comment, tag or style never closed hides the rest, with where it starts', () => {
    const broken = (tail: string) => lintContent(clean({ body: `${clean().body}\n\n${tail}` }))
    expect(only('html_unparseable', broken('<!-- [if mso]> <p>More news</p>'))).toEqual([
      {
        code: 'html_unparseable',
        severity: 'error',
        field: 'body',
        message: expect.stringContaining('never closed'),
        examples: ['a comment at line 3'],
      },
    ])
    expect(only('html_unparseable', broken('<a href="https://example.com>Read more</a>'))[0]?.examples).toEqual([
      '<a> at line 3',
    ])
    expect(only('html_unparseable', broken('<style>p { color: red }'))[0]?.examples).toEqual(['<style> at line 3'])
    expect(only('html_unparseable', broken('<p>Terms apply.</p>'))).toEqual([])
  })

  it('html_malformed: elements left open or closed out of order; optional end tags are fine', () => {
    const body = `<div><table><tr><td>${prose}</td></tr></table>\n<b><i>bold</b></i>${unsubscribe}`
    expect(lintContent(clean({ body }))).toEqual([
      {
        code: 'html_malformed',
        severity: 'warning',
        field: 'body',
        message: expect.stringMatching(/^2 elements are never closed/),
        examples: ['<i> at line 2', '<div> at line 1'],
      },
    ])
    const optional = `<ul><li>One<li>Two</ul><p>${prose}<p>${unsubscribe}<table><tr><td>x<td>y</table>`
    expect(only('html_malformed', lintContent(clean({ body: optional })))).toEqual([])
  })

  it('link_shortener and link_ip_address: each link named once, templated paths and IP spellings included', () => {
    const links = [
      '<a href="https://bit.ly/spring">one</a>',
      '<a href=" https://www.TinyURL.com/x ">two</a>',
      '<a href="https://bit.ly/spring">again</a>',
      '<a href="https://t.co/{{ data.code }}">three</a>',
      '<a href="http://192.0.2.7/offer">four</a>',
      '<a href="http://3221225985/offer">five</a>',
      '<a href="https://[2001:db8::1]/x">six</a>',
      '<img src="http://198.51.100.4/logo.png" alt="Logo">',
      // Neither: a real domain, a templated host, an address inside a path, mailto and relative links.
      '<a href="https://shop.example.com/bit.ly">ok</a><a href="{{ data.link }}">ok</a>',
      '<a href="https://example.com/192.0.2.7">ok</a><a href="mailto:help@example.com">ok</a><a href="/x">ok</a>',
    ]
    const findings = lintContent(clean({ body: `${prose.repeat(6)}${links.join('')}${unsubscribe}` }))
    expect(findings).toEqual([
      {
        code: 'link_shortener',
        severity: 'warning',
        field: 'body',
        message: expect.stringMatching(/^3 links go through a URL shortener/),
        examples: ['https://bit.ly/spring', 'https://www.TinyURL.com/x', 'https://t.co/{{ data.code }}'],
      },
      {
        code: 'link_ip_address',
        severity: 'warning',
        field: 'body',
        message: expect.stringMatching(/^4 links point at an IP address/),
        examples: [
          'http://192.0.2.7/offer',
          'http://3221225985/offer',
          'https://[2001:db8::1]/x',
          'http://198.51.100.4/logo.png',
        ],
      },
    ])
  })

  it('image_missing_alt: counts every image without alt, names a few; alt="" is a decoration, not a miss', () => {
    const images = Array.from({ length: 7 }, (_, n) => `<img src="https://cdn.example.com/${n}.png">`).join('')
    const body = `${prose.repeat(6)}${images}<img src="https://cdn.example.com/spacer.gif" alt="">${unsubscribe}`
    expect(lintContent(clean({ body }))).toEqual([
      {
        code: 'image_missing_alt',
        severity: 'warning',
        field: 'body',
        message: expect.stringMatching(/^7 images have no alt text/),
        examples: [0, 1, 2, 3, 4].map((n) => `https://cdn.example.com/${n}.png`),
      },
    ])
  })

  it('subject_all_caps: capitals only, placeholders aside; short acronyms and mixed case are fine', () => {
    const subject = (text: string) => codes(lintContent(clean({ subject: text })))
    expect(subject('FINAL SALE: 50% OFF {{ firstName }}!')).toEqual(['warning:subject_all_caps'])
    expect(subject('ÜBER ANGEBOT')).toEqual(['warning:subject_all_caps'])
    expect(subject('FAQ')).toEqual([])
    expect(subject('Final SALE')).toEqual([])
    expect(subject('{{ subject }}')).toEqual([])
    expect(lintContent(clean({ subject: 'BIG NEWS' }))[0]).toMatchObject({ field: 'subject' })
  })
})

describe('pre-send lint: bad input gives findings, never an exception', () => {
  it('a 5 MB body is linted in bounded time with short findings', () => {
    const row =
      '<tr><td><p>Hello <b>world</b> <a href="https://bit.ly/x">link</a><img src="https://x.example/a.png"></p></td></tr>'
    const body = `<table>${row.repeat(Math.ceil(5_000_000 / row.length))}</table>`
    expect(body.length).toBeGreaterThan(5_000_000)
    const started = performance.now()
    const findings = lintContent(clean({ body }))
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(codes(findings)).toEqual([
      'error:unsubscribe_link_missing',
      'error:html_too_large',
      'warning:link_shortener',
      'warning:image_missing_alt',
    ])
    expect(only('image_missing_alt', findings)[0]?.examples).toHaveLength(5)
    expect(only('image_missing_alt', findings)[0]?.message).toMatch(/^4[0-9],[0-9]{3} images have no alt text/)
  })

  it('HTML that does not parse, or is no HTML at all, gives findings', () => {
    for (const body of ['<<<>>>', '</div></table>', '<a href="x', '<!--', '<div', '\u0001\u0002 <', '{{', '>']) {
      const findings = lintContent(clean({ body }))
      expect(findings.length, body).toBeGreaterThan(0)
      for (const item of findings) expect(item.message.length, body).toBeGreaterThan(20)
    }
    expect(codes(lintContent(clean({ body: '<a href="x' })))).toEqual([
      'error:unsubscribe_link_missing',
      'error:html_unparseable',
      'error:text_part_empty',
    ])
  })
})
