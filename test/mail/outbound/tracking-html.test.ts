import { describe, expect, it } from 'vitest'
import { applyTracking, pixelMinHtmlLength, trackHtml } from '../../../src/mail/outbound/tracking-html.js'

/** Text enough that an email carries the open pixel (its HTML over `pixelMinHtmlLength` characters). */
const long = `<p>${'Hi '.repeat(1_100)}</p>`
const pixelTag = (url: string) =>
  `<a href="${url}" aria-hidden="true" tabindex="-1"><img src="${url}" width="1" height="1" alt="" style="display:block;border:0" /></a>`

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
    expect(applyTracking(`<html><body>${long}</body></html>`, { clickUrl, pixelUrl, keep: [] })).toBe(
      `<html><body>${long}${pixelTag(pixelUrl)}</body></html>`,
    )
    expect(applyTracking(long, { clickUrl, pixelUrl, keep: [] })).toBe(`${long}${pixelTag(pixelUrl)}`)
  })

  it('gives the HTML with its links rewritten but no pixel, for the text alternative', () => {
    const html = `<body><a href="https://a.example/">a</a>${long}</body>`
    const tracked = trackHtml(html, {
      clickUrl: () => 'https://t.example/c',
      pixelUrl: 'https://t.example/o',
      keep: [],
    })
    expect(tracked.linksOnly).toBe(`<body><a href="https://t.example/c">a</a>${long}</body>`)
    expect(tracked.html).toBe(
      `<body><a href="https://t.example/c">a</a>${long}${pixelTag('https://t.example/o')}</body>`,
    )
  })

  it('adds no pixel to HTML of 3,200 characters or fewer (code points, as rewritten), one to longer HTML', () => {
    const pixelUrl = 'https://t.example/o/tok'
    const options = { clickUrl: () => 'https://t.example/c', pixelUrl, keep: [] }
    const sized = (length: number, fill = 'x') => `<p>${fill.repeat(length - 7)}</p>`
    expect(sized(pixelMinHtmlLength)).toHaveLength(3_200)
    expect(applyTracking(sized(3_200), options)).toBe(sized(3_200))
    expect(applyTracking(sized(3_201), options)).toBe(`${sized(3_201)}${pixelTag(pixelUrl)}`)
    // 3,200 characters in 6,386 UTF-16 units: still short.
    expect(applyTracking(sized(3_200, '😀'), options)).not.toContain('<img')
    // Long enough once its link is rewritten (29 characters become 19), or short once rewritten.
    const linked = (length: number, link: string) => `<a href="${link}">a</a>${sized(length - link.length - 19)}`
    expect(applyTracking(linked(3_210, 'https://a.example/a'), options)).toContain('<img')
    expect(applyTracking(linked(3_210, 'https://a.example/abcdefghijklmnopqrst'), options)).not.toContain('<img')
  })
})

/** Tracks with a redirect that shows the link it was given, and lists those links. */
function tracker(keep: readonly string[] = []) {
  const links: string[] = []
  const options = {
    keep,
    clickUrl: (link: string) => {
      links.push(link)
      return `https://t.example/c/${links.length}?k=1&v=2`
    },
  }
  return { links, options }
}
const rewritten = (index: number) => `"https://t.example/c/${index}?k=1&amp;v=2"`

describe('links found by parsing the HTML', () => {
  it('rewrites every <a href> and <area href> whatever the quoting, case and attribute order', () => {
    const html = [
      '<a title=">" href="https://one.example/">1</a>',
      '<a href=https://two.example/u?x=1 class=btn>2</a>',
      "<a\n  data-x='a' HREF = 'https://three.example/'>3</a>",
      '<A class="x" Href="https://four.example/">4</A>',
      '<map><area shape="rect" coords="0,0,1,1" href="https://five.example/"></map>',
      '<a title=\'"\' href="https://six.example/" target=_blank>6</a>',
    ].join('\n')
    const { links, options } = tracker()
    expect(applyTracking(html, options)).toBe(
      [
        `<a title=">" href=${rewritten(1)}>1</a>`,
        `<a href=${rewritten(2)} class=btn>2</a>`,
        `<a\n  data-x='a' HREF = ${rewritten(3)}>3</a>`,
        `<A class="x" Href=${rewritten(4)}>4</A>`,
        `<map><area shape="rect" coords="0,0,1,1" href=${rewritten(5)}></map>`,
        `<a title='"' href=${rewritten(6)} target=_blank>6</a>`,
      ].join('\n'),
    )
    expect(links).toEqual([
      'https://one.example/',
      'https://two.example/u?x=1',
      'https://three.example/',
      'https://four.example/',
      'https://five.example/',
      'https://six.example/',
    ])
  })

  it('never rewrites inside comments, conditional comments, <script>, <style>, CDATA, <textarea> or <title>', () => {
    const html = `<!DOCTYPE html><html><head><title><a href="https://title.example/"></title>
<style>/* <a href="https://style.example/"> */ a[href="https://x.example/"] { color: red }</style>
<script>document.write('<a href="https://script.example/">')</script></head><body>
<!-- <a href="https://comment.example/">old</a> -->
<!--[if mso]><a href="https://mso.example/">Outlook</a><![endif]-->
<![CDATA[<a href="https://cdata.example/">]]>
<textarea><a href="https://textarea.example/"></textarea>
</body></html>`
    const { links, options } = tracker()
    expect(applyTracking(html, options)).toBe(html)
    expect(links).toEqual([])
  })

  it('rewrites the real links of a "not Outlook" conditional block', () => {
    const html = '<!--[if !mso]><!--><a href="https://web.example/">web</a><!--<![endif]-->'
    const { links, options } = tracker()
    expect(applyTracking(html, options)).toBe(`<!--[if !mso]><!--><a href=${rewritten(1)}>web</a><!--<![endif]-->`)
    expect(links).toEqual(['https://web.example/'])
  })

  it('tracks the entity-decoded URL (named, numeric, hex) and writes the new one encoded', () => {
    const html =
      '<a href="https://s.example/find?q=&lt;x&gt;&amp;r=&#x3C;&#60;&eacute;&nbsp;&quot;&apos;&#128512;">s</a>'
    const { links, options } = tracker()
    expect(applyTracking(html, options)).toBe(`<a href=${rewritten(1)}>s</a>`)
    expect(links).toEqual(['https://s.example/find?q=<x>&r=<<é\u00a0"\'😀'])
  })

  it('decodes as browsers do in attributes: a legacy name followed by = or a letter stays as written', () => {
    const { links, options } = tracker()
    applyTracking('<a href="https://s.example/?a=1&copy=2&notit;&not.&amp">s</a>', options)
    expect(links).toEqual(['https://s.example/?a=1&copy=2&notit;¬.&'])
  })

  it('trims the whitespace and drops the newlines a browser ignores in a URL', () => {
    const { links, options } = tracker()
    applyTracking('<a href="\n  https://w.example/a\n/b&#10;  ">w</a>', options)
    expect(links).toEqual(['https://w.example/a/b'])
  })

  it('leaves the unsubscribe link alone when it is written with entities, and empty, missing or repeated hrefs', () => {
    const keep = 'https://mail.example/unsubscribe/tok?a=1&b=2'
    const html = [
      '<a href="https://mail.example/unsubscribe/tok?a=1&amp;b=2">Unsubscribe</a>',
      '<a href="">empty</a><a href>bare</a><a name="x">named</a>',
      '<a href="#top" href="https://second.example/">the first href counts</a>',
      '<a href="https://not a url/">bad</a><a href="//cdn.example/x">relative</a>',
      '<link href="https://fonts.example/css" rel="stylesheet"><img src="https://img.example/x.png">',
    ].join('')
    const { links, options } = tracker([keep])
    expect(applyTracking(html, options)).toBe(html)
    expect(links).toEqual([])
  })

  it('keeps every other byte of a marketing email as written', () => {
    const html = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office">
<head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<!--[if gte mso 9]><xml><o:OfficeDocumentSettings><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml><![endif]-->
<style type="text/css">  td { padding:0 }  </style></head>
<BODY style="margin:0">
<table role="presentation" width="100%"><tr><td align="center">&nbsp;Hello&#160;&mdash; &amp; welcome<br>
<!--[if mso]><v:roundrect href="https://shop.example/sale" style="height:40px"><center>Shop</center></v:roundrect><![endif]-->
<a   href =  "https://shop.example/sale?utm_source=mail&amp;utm_campaign=x"   style="color:#fff">Shop&nbsp;now</a>
<img src="https://cdn.example/logo.png" alt="Logo" width=100 /></td></tr></table>
<p>Write to <a href="mailto:help@shop.example">us</a> or call <a href='tel:+15551234'>us</a>.</p>
</BODY>
</html>
`
    const { links, options } = tracker()
    expect(applyTracking(html, options)).toBe(
      html.replace('"https://shop.example/sale?utm_source=mail&amp;utm_campaign=x"', rewritten(1)),
    )
    expect(links).toEqual(['https://shop.example/sale?utm_source=mail&utm_campaign=x'])
  })

  it('adds the pixel before the real </body>, not one in a comment or a script', () => {
    const pixelUrl = 'https://t.example/o/tok'
    const { options } = tracker()
    const tracked = applyTracking(`<body>${long}<script>"</body>"</script></BODY><!-- </body> --></html>`, {
      ...options,
      pixelUrl,
    })
    expect(tracked).toBe(`<body>${long}<script>"</body>"</script>${pixelTag(pixelUrl)}</BODY><!-- </body> --></html>`)
    expect(applyTracking(`${long}<!-- </body> -->`, { ...options, pixelUrl })).toBe(
      `${long}<!-- </body> -->${pixelTag(pixelUrl)}`,
    )
  })

  it('rewrites links after </body> too, leaving the pixel where it belongs', () => {
    const { options } = tracker()
    expect(
      applyTracking(`<body><a href="https://a.example/">a</a>${long}</body><a href="https://b.example/">b</a>`, {
        ...options,
        pixelUrl: 'https://t.example/o',
      }),
    ).toBe(
      `<body><a href=${rewritten(1)}>a</a>${long}${pixelTag('https://t.example/o')}</body><a href=${rewritten(2)}>b</a>`,
    )
  })
})
