import { QuoteType, Tokenizer, type TokenizerCallbacks } from 'htmlparser2'

/**
 * Open and click tracking applied to a rendered HTML body: links go through a redirect and a 1×1 pixel is
 * appended. Links the recipient must be able to trust as-is (unsubscribe and preference pages, mailto:,
 * tel:, in-page anchors) are never rewritten.
 */
export type TrackingOptions = {
  /** URL of the redirect for the original link. */
  clickUrl(link: string): string
  pixelUrl?: string
  /** Links starting with one of these are left untouched (the subscription pages' URLs). */
  keep: readonly string[]
}

/** One `href` value as it sits in the source (quotes included), and the URL it holds once decoded. */
type Href = { start: number; end: number; link: string }

/** What the tracking needs from a document: its link targets and where its last `</body>` starts. */
type LinkScan = { hrefs: Href[]; bodyCloseAt: number | undefined }

const isTagWhitespace = (code: number) => code === 32 || code === 9 || code === 10 || code === 12 || code === 13

/** Where the value of an attribute whose name ends at `nameEnd` starts: past `=`, spaces and an opening quote. */
function valueStartAfter(html: string, nameEnd: number): number {
  let index = nameEnd
  while (isTagWhitespace(html.charCodeAt(index))) index++
  index++ // the `=`
  while (isTagWhitespace(html.charCodeAt(index))) index++
  const quote = html.charCodeAt(index)
  return quote === 34 || quote === 39 ? index + 1 : index
}

/** The URL a browser would read from an attribute value: ASCII whitespace and controls trimmed, tabs and newlines dropped. */
function urlOfAttribute(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the URL standard strips C0 controls around a URL
  return value.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '')
}

/**
 * Finds every `<a href>` and `<area href>` with htmlparser2's tokenizer, which knows attribute quoting, comments,
 * CDATA and the raw text of `<script>`/`<style>`, and decodes character references as HTML5 does in attributes.
 * Only the source positions are kept, so the caller can splice new values in without re-serialising anything.
 */
function scanLinks(html: string): LinkScan {
  const hrefs: Href[] = []
  let bodyCloseAt: number | undefined
  let inLinkElement = false
  let hrefSeen = false
  let capturing = false
  let valueStart = 0
  let decoded = ''
  // Lengths first: most tags and attributes are ruled out without slicing a string.
  const nameIs = (start: number, end: number, name: string) =>
    end - start === name.length && html.slice(start, end).toLowerCase() === name
  const ignore = () => undefined
  const callbacks: TokenizerCallbacks = {
    onopentagname(start, end) {
      inLinkElement = nameIs(start, end, 'a') || nameIs(start, end, 'area')
      hrefSeen = false
    },
    onattribname(start, end) {
      // A repeated attribute is ignored by browsers: only the first `href` is the link.
      capturing = inLinkElement && !hrefSeen && nameIs(start, end, 'href')
      if (!capturing) return
      hrefSeen = true
      decoded = ''
      valueStart = valueStartAfter(html, end)
    },
    onattribdata(start, end) {
      if (capturing) decoded += html.slice(start, end)
    },
    onattribentity(codepoint) {
      if (capturing) decoded += String.fromCodePoint(codepoint)
    },
    onattribend(quote, end) {
      if (!capturing) return
      capturing = false
      if (quote === QuoteType.NoValue) return
      const quoted = quote !== QuoteType.Unquoted
      hrefs.push({ start: quoted ? valueStart - 1 : valueStart, end, link: urlOfAttribute(decoded) })
    },
    onclosetag(start, end) {
      // `start` is the name's; the tag itself begins with the `</` before it.
      if (nameIs(start, end, 'body')) bodyCloseAt = start - 2
    },
    oncdata: ignore,
    oncomment: ignore,
    ondeclaration: ignore,
    onend: ignore,
    onopentagend: ignore,
    onprocessinginstruction: ignore,
    onselfclosingtag: ignore,
    ontext: ignore,
    ontextentity: ignore,
  }
  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks)
  tokenizer.write(html)
  tokenizer.end()
  return { hrefs, bodyCloseAt }
}

function encodeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')
}

/** Absolute http(s) links only; anything the redirect could not lead back to stays as written. */
function isTrackable(link: string, keep: readonly string[]): boolean {
  return /^https?:\/\//i.test(link) && URL.canParse(link) && !keep.some((prefix) => link.startsWith(prefix))
}

/**
 * The pixel, inside a link to itself, hidden from screen readers and keyboards. Rspamd's URI_COUNT_ODD (+1.0)
 * scores a multipart/alternative message whose URLs occur an odd number of times: each link is counted in the text
 * part and again in the HTML, an image only once. The link makes the pixel's URL count twice, so tracking leaves the
 * parity, and that score, as they were.
 */
const pixelImage = (pixelUrl: string) => {
  const url = encodeAttribute(pixelUrl)
  return `<a href="${url}" aria-hidden="true" tabindex="-1"><img src="${url}" width="1" height="1" alt="" style="display:block;border:0" /></a>`
}

/**
 * The open pixel goes only into HTML longer than this (in characters, as it leaves with its links rewritten).
 * SpamAssassin's HTML_IMAGE_ONLY_04 … _32 rules score any HTML part with an `<img>` by its length alone, in steps of
 * 400 up to 3,200: in a shorter email the pixel would add an "image-only" score (up to 2.8 points) to one that has no
 * image, or move one that has images into another step. Past this length no such rule applies, whatever the pixel.
 */
export const pixelMinHtmlLength = 3_200

/**
 * Whether the text has more than `length` characters counted as code points, the smallest count a filter may use
 * (never more than its UTF-8 bytes, nor than its UTF-16 units): only text near the limit is counted.
 */
function longerThan(text: string, length: number): boolean {
  if (text.length <= length) return false
  if (text.length > 2 * length) return true
  let count = text.length
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    // The second half of a surrogate pair: one code point in two units.
    if (code >= 0xdc00 && code <= 0xdfff) count--
  }
  return count > length
}

/** A tracked HTML body, and the same with its links rewritten but no pixel (what the text alternative is made from). */
export type TrackedHtml = { html: string; linksOnly: string }

/**
 * Rewrites the trackable links and adds the pixel before the last `</body>` (or at the end of a fragment) when the
 * HTML is long enough to carry it (`pixelMinHtmlLength`). Only the `href` values change, each written back
 * double-quoted and encoded; every other character of the document stays as it was (conditional comments for
 * Outlook, entity spellings, whitespace).
 */
export function applyTracking(html: string, options: TrackingOptions): string {
  return trackHtml(html, options).html
}

export function trackHtml(html: string, options: TrackingOptions): TrackedHtml {
  const { hrefs, bodyCloseAt } = scanLinks(html)
  const splices: { start: number; end: number; text: string }[] = []
  for (const href of hrefs) {
    if (!isTrackable(href.link, options.keep)) continue
    splices.push({ start: href.start, end: href.end, text: `"${encodeAttribute(options.clickUrl(href.link))}"` })
  }
  const bodyEnd = bodyCloseAt ?? html.length
  let result = ''
  let copied = 0
  // Where the end of the body lands once the links before it are rewritten.
  let pixelAt = bodyEnd
  for (const splice of splices) {
    result += html.slice(copied, splice.start) + splice.text
    copied = splice.end
    if (splice.end <= bodyEnd) pixelAt += splice.text.length - (splice.end - splice.start)
  }
  result += html.slice(copied)
  if (!options.pixelUrl || !longerThan(result, pixelMinHtmlLength)) return { html: result, linksOnly: result }
  return { html: result.slice(0, pixelAt) + pixelImage(options.pixelUrl) + result.slice(pixelAt), linksOnly: result }
}
