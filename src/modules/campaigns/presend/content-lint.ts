import { finding, type PresendFinding, type Severity } from './findings.js'
import { type HtmlScan, scanHtml } from './html-scan.js'
import { riskOfLink } from './link-hosts.js'

/**
 * Gmail clips an HTML part past 102 kB and hides the rest (the unsubscribe link at the bottom, the open pixel)
 * behind "View entire message". Counted on the source: tracked links and personalisation only add bytes.
 */
export const gmailClipBytes = 102_000
/** From here a send is close enough to the clip that tracking and personalisation may push it over. */
export const nearClipBytes = 90_000
/** Fewer words than this is not a text part anyone can read: a greeting, or a single line. */
const minTextWords = 10
/**
 * With an image, receivers want this much text beside it: SpamAssassin's HTML_IMAGE_ONLY_* rules score images
 * with less than 400 characters of words the most.
 */
const minTextCharsWithImages = 400

export type ContentToLint = {
  subject: string
  /** HTML with Liquid, as saved. */
  body: string
  /**
   * Whether the mail must carry a visible unsubscribe link, and how much its absence weighs: an error for
   * marketing campaigns, a warning where nothing blocks (templates, transactional campaigns), false when none is
   * expected.
   */
  unsubscribeLink: Severity | false
  /** PUBLIC_URL, the base of the one-click URL in List-Unsubscribe, when the mail carries those headers. */
  oneClickBaseUrl: string | undefined
}

/**
 * Lints an email's content as written: what receivers and readers will see of it. Pure and linear in the body's
 * length; any string gives findings (never an exception), a 5 MB body and one that is not HTML included.
 */
export function lintContent(content: ContentToLint): PresendFinding[] {
  const findings: PresendFinding[] = []
  const bytes = Buffer.byteLength(content.body, 'utf8')
  const scan = scanHtml(content.body)

  if (content.unsubscribeLink && !scan.hasUnsubscribeLink) {
    findings.push(
      finding(
        'unsubscribe_link_missing',
        content.unsubscribeLink,
        'body',
        'The body has no unsubscribe link. Add one, e.g. <a href="{{ unsubscribeUrl }}">Unsubscribe</a> (or ' +
          '{{ manageUrl }} for the preferences page): Gmail and Yahoo require a visible one in bulk mail, and ' +
          'recipients who cannot find it press "Report spam" instead.',
      ),
    )
  }
  if (content.oneClickBaseUrl !== undefined && !/^https:\/\//i.test(content.oneClickBaseUrl)) {
    findings.push(
      finding(
        'one_click_not_https',
        'warning',
        'headers.List-Unsubscribe',
        `The one-click unsubscribe URL starts with ${content.oneClickBaseUrl}: receivers honour ` +
          'List-Unsubscribe-Post (RFC 8058) only for an https URL. Set PUBLIC_URL to the https address of this server.',
      ),
    )
  }
  findings.push(...lintSize(bytes))
  findings.push(...lintStructure(scan))
  findings.push(...lintText(scan))
  findings.push(...lintLinks(scan.links, scan.imageSources))
  if (scan.imagesWithoutAlt > 0) {
    findings.push(
      finding(
        'image_missing_alt',
        'warning',
        'body',
        `${plural(scan.imagesWithoutAlt, 'image has', 'images have')} no alt text. Most clients block images ` +
          'until the reader allows them, and screen readers announce the file name: describe each image in alt="…" ' +
          '(alt="" for a spacer or decoration).',
        scan.imagesWithoutAltSources,
      ),
    )
  }
  if (isAllCapitals(content.subject)) {
    findings.push(
      finding(
        'subject_all_caps',
        'warning',
        'subject',
        'The subject is written in capitals only. It reads as shouting, and spam filters score it ' +
          '(SpamAssassin SUBJ_ALL_CAPS): use sentence case.',
      ),
    )
  }
  return findings
}

function lintSize(bytes: number): PresendFinding[] {
  const kb = (value: number) => `${(value / 1000).toFixed(1)} kB`
  if (bytes > gmailClipBytes) {
    return [
      finding(
        'html_too_large',
        'error',
        'body',
        `The HTML is ${kb(bytes)}; Gmail clips messages past ${kb(gmailClipBytes)} and hides the rest, the ` +
          'unsubscribe link included. Shorten it: move long content to a web page, drop unused styles, host images.',
      ),
    ]
  }
  if (bytes > nearClipBytes) {
    return [
      finding(
        'html_near_clip_limit',
        'warning',
        'body',
        `The HTML is ${kb(bytes)}, close to the ${kb(gmailClipBytes)} at which Gmail clips a message; tracked ` +
          'links and personalisation add more when it is sent.',
      ),
    ]
  }
  return []
}

function lintStructure(scan: HtmlScan): PresendFinding[] {
  const findings: PresendFinding[] = []
  const where = (spots: { what: string; line: number }[]) => spots.map((spot) => `${spot.what} at line ${spot.line}`)
  if (scan.swallowed.length > 0) {
    findings.push(
      finding(
        'html_unparseable',
        'error',
        'body',
        'The HTML does not parse: a comment, tag or <style>/<script> opened here is never closed, so everything ' +
          'after it is hidden from the reader. Close it.',
        where(scan.swallowed),
      ),
    )
  }
  if (scan.unclosed > 0) {
    findings.push(
      finding(
        'html_malformed',
        'warning',
        'body',
        `${plural(scan.unclosed, 'element is', 'elements are')} never closed or closed out of order. Each ` +
          'mail client repairs that its own way, so the layout can break in some of them: add the missing end tags.',
        where(scan.unclosedSpots),
      ),
    )
  }
  return findings
}

function lintText(scan: HtmlScan): PresendFinding[] {
  if (scan.textWords === 0) {
    return [
      finding(
        'text_part_empty',
        'error',
        'body',
        'The body has no text, only markup or images, so the plain-text part of the email is empty. Receivers ' +
          'score image-only mail as spam and text-only readers see nothing: write the message as text too.',
      ),
    ]
  }
  if (scan.textWords < minTextWords) {
    return [
      finding(
        'text_part_thin',
        'warning',
        'body',
        `The plain-text part would be ${plural(scan.textWords, 'word', 'words')} long. Say in text what the ` +
          'email is about: it is what text-only readers, previews and spam filters read.',
      ),
    ]
  }
  if (scan.imageSources.length > 0 && scan.textChars < minTextCharsWithImages) {
    return [
      finding(
        'text_part_thin',
        'warning',
        'body',
        `The body has ${plural(scan.imageSources.length, 'image', 'images')} and ${scan.textChars} characters ` +
          `of text; with less than ${minTextCharsWithImages}, spam filters read it as image-only mail. Put more ` +
          'of the message in text.',
      ),
    ]
  }
  return []
}

function lintLinks(links: readonly string[], imageSources: readonly string[]): PresendFinding[] {
  const shorteners = new Set<string>()
  const addresses = new Set<string>()
  for (const link of [...links, ...imageSources]) {
    const risk = riskOfLink(link)
    if (risk === 'shortener') shorteners.add(link)
    else if (risk === 'ip') addresses.add(link)
  }
  const findings: PresendFinding[] = []
  if (shorteners.size > 0) {
    findings.push(
      finding(
        'link_shortener',
        'warning',
        'body',
        `${plural(shorteners.size, 'link goes', 'links go')} through a URL shortener. Spam filters distrust ` +
          'shortened links (spammers use them to hide where a link leads): link to the page itself.',
        [...shorteners],
      ),
    )
  }
  if (addresses.size > 0) {
    findings.push(
      finding(
        'link_ip_address',
        'warning',
        'body',
        `${plural(addresses.size, 'link points', 'links point')} at an IP address instead of a domain name, ` +
          'which spam filters treat as a sign of phishing: use the domain name.',
        [...addresses],
      ),
    )
  }
  return findings
}

/** At least five letters, none of them lower case (Liquid placeholders left out): "FINAL SALE", not "FAQ". */
function isAllCapitals(subject: string): boolean {
  const words = subject.replace(/\{\{.*?\}\}|\{%.*?%\}/g, ' ')
  const letters = words.match(/\p{L}/gu) ?? []
  const cased = letters.filter((letter) => letter.toLowerCase() !== letter.toUpperCase())
  return cased.length >= 5 && cased.every((letter) => letter === letter.toUpperCase())
}

function plural(count: number, one: string, many: string): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`
}
