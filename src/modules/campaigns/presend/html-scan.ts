import { Parser } from 'htmlparser2'

/** Where something sits in the source: its tag or text and the line it starts on. */
type SourceSpot = { what: string; line: number }

/** What the pre-send check needs from an HTML body, gathered in one pass of htmlparser2. */
export type HtmlScan = {
  /** `href` of `<a>` and `<area>`, as a browser reads them (entities decoded, surrounding spaces trimmed). */
  links: string[]
  /** `src` of every `<img>`. */
  imageSources: string[]
  /** `<img>` elements without an `alt` attribute, and the `src` of the first few. */
  imagesWithoutAlt: number
  imagesWithoutAltSources: string[]
  /** Words and non-space characters a reader sees (what the plain-text alternative is made of). */
  textWords: number
  textChars: number
  /** `{{ unsubscribeUrl }}` or `{{ manageUrl }}` in an attribute or in the visible text. */
  hasUnsubscribeLink: boolean
  /** Elements never closed although HTML requires their end tag (or closed out of order), and the first few. */
  unclosed: number
  unclosedSpots: SourceSpot[]
  /** A comment, tag or raw-text element still open at the end: everything after it is lost or hidden. */
  swallowed: SourceSpot[]
}

// htmlparser2's own list: it closes these itself, at once, whatever the source says.
const voidElements = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
])

// HTML lets these end without an end tag (WHATWG "optional tags"); leaving them open is no mistake.
const optionalEndTag = new Set([
  'html',
  'head',
  'body',
  'p',
  'li',
  'dt',
  'dd',
  'option',
  'optgroup',
  'colgroup',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'rb',
  'rt',
  'rtc',
  'rp',
])

// Their content is raw text: one left open reads the rest of the body as script, style or title.
const rawTextElements = new Set(['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes'])

// Text inside these never reaches the reader.
const hiddenElements = new Set(['head', 'script', 'style', 'title', 'template', 'noscript'])

const subscriptionLink = /\{\{-?\s*(?:unsubscribeUrl|manageUrl)\b/
// Liquid tags are no text; an output (`{{ firstName }}`) is one word of it once rendered.
const liquidTag = /\{%.*?%\}/g
const liquidOutput = /\{\{.*?\}\}/g

/** The URL a browser reads from an attribute: ASCII whitespace and controls around it trimmed. */
function urlOfAttribute(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the URL standard strips C0 controls around a URL
  return value.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '')
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13 || code === 160
}

/** 1-based line of a source position (only called for the few spots a finding names). */
function lineAt(source: string, index: number): number {
  let line = 1
  for (let at = source.indexOf('\n'); at !== -1 && at < index; at = source.indexOf('\n', at + 1)) line++
  return line
}

type OpenElement = { name: string; at: number }

/** How many offending spots a scan keeps: enough to find them, few enough for a 5 MB body. */
const maxSpots = 5

/**
 * Scans an HTML body (Liquid left in place) with htmlparser2, the forgiving parser the tracking code uses: any
 * input gives a result in time linear in its length, so a 5 MB body or one that is not HTML at all gets findings,
 * never an exception. Unclosed elements are found by following the parser's own element stack: it reports each
 * close as explicit or implied.
 */
export function scanHtml(html: string): HtmlScan {
  const scan: HtmlScan = {
    links: [],
    imageSources: [],
    imagesWithoutAlt: 0,
    imagesWithoutAltSources: [],
    textWords: 0,
    textChars: 0,
    hasUnsubscribeLink: false,
    unclosed: 0,
    unclosedSpots: [],
    swallowed: [],
  }
  const stack: OpenElement[] = []
  const unclosedAt: OpenElement[] = []
  const swallowedAt: OpenElement[] = []
  // An open tag whose `>` never came: the parser pushed its element, but never reported the tag itself.
  let pendingTag: OpenElement | undefined
  let hiddenDepth = 0
  let inWord = false

  const parser: Parser = new Parser(
    {
      onopentagname(name) {
        inWord = false
        if (voidElements.has(name)) {
          pendingTag = { name, at: parser.startIndex }
          return
        }
        const element = { name, at: parser.startIndex }
        stack.push(element)
        pendingTag = element
        if (hiddenElements.has(name)) hiddenDepth++
      },
      onopentag(name, attributes) {
        pendingTag = undefined
        for (const value of Object.values(attributes)) {
          if (!scan.hasUnsubscribeLink && subscriptionLink.test(value)) scan.hasUnsubscribeLink = true
        }
        if ((name === 'a' || name === 'area') && attributes.href !== undefined) {
          scan.links.push(urlOfAttribute(attributes.href))
        }
        if (name === 'img') {
          const source = urlOfAttribute(attributes.src ?? '')
          if (source) scan.imageSources.push(source)
          if (attributes.alt === undefined && scan.imagesWithoutAlt++ < maxSpots) {
            scan.imagesWithoutAltSources.push(source || '(an image without src)')
          }
        }
      },
      onclosetag(name, isImplied) {
        inWord = false
        if (voidElements.has(name)) return
        const element = stack.pop()
        if (!element) return
        if (hiddenElements.has(element.name)) hiddenDepth--
        if (!isImplied || element === pendingTag) return
        if (rawTextElements.has(element.name)) swallowedAt.push(element)
        else if (!optionalEndTag.has(element.name) && scan.unclosed++ < maxSpots) unclosedAt.push(element)
      },
      ontext(data) {
        if (hiddenDepth > 0) return
        if (!scan.hasUnsubscribeLink && subscriptionLink.test(data)) scan.hasUnsubscribeLink = true
        const text = data.includes('{') ? data.replace(liquidTag, ' ').replace(liquidOutput, 'x') : data
        for (let index = 0; index < text.length; index++) {
          const space = isSpace(text.charCodeAt(index))
          if (!space) {
            scan.textChars++
            if (!inWord) scan.textWords++
          }
          inWord = !space
        }
      },
      oncomment() {
        // A comment the source ends inside has no `>`: the parser hands the rest of the body over as its text.
        if (html.charCodeAt(parser.endIndex) !== 62) swallowedAt.push({ name: '!--', at: parser.startIndex })
      },
      onend() {
        if (pendingTag) swallowedAt.push(pendingTag)
      },
    },
    { decodeEntities: true },
  )
  parser.write(html)
  parser.end()
  const spot = ({ name, at }: OpenElement) => ({
    what: name === '!--' ? 'a comment' : `<${name}>`,
    line: lineAt(html, at),
  })
  scan.unclosedSpots = unclosedAt.map(spot)
  scan.swallowed = swallowedAt.slice(0, maxSpots).map(spot)
  return scan
}
