/**
 * Open and click tracking applied to a rendered HTML body: links go through a redirect and a 1×1 pixel is
 * appended. Links the recipient must be able to trust as-is (unsubscribe and preference pages, mailto:,
 * tel:, in-page anchors) are never rewritten.
 */
export type TrackingOptions = {
  /** URL of the redirect for the original link. */
  clickUrl(link: string): string
  pixelUrl?: string
  /** Links left untouched (the contact's unsubscribe, subscribe and manage URLs). */
  keep: readonly string[]
}

const anchorHref = /(<a\b[^>]*?\shref\s*=\s*)(["'])(.*?)\2/gis

function decodeAttribute(value: string): string {
  return value
    .replace(/&amp;/g, '&')
    .replace(/&#x([0-9a-f]+);/gi, (_match, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_match, decimal: string) => String.fromCodePoint(Number.parseInt(decimal, 10)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
}

function encodeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')
}

function isTrackable(link: string, keep: readonly string[]): boolean {
  if (!/^https?:\/\//i.test(link)) return false
  return !keep.includes(link)
}

export function applyTracking(html: string, options: TrackingOptions): string {
  const rewritten = html.replace(anchorHref, (match, prefix: string, _quote: string, raw: string) => {
    const link = decodeAttribute(raw.trim())
    if (!isTrackable(link, options.keep)) return match
    return `${prefix}"${encodeAttribute(options.clickUrl(link))}"`
  })
  if (!options.pixelUrl) return rewritten
  const pixel = `<img src="${encodeAttribute(options.pixelUrl)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />`
  return /<\/body>/i.test(rewritten)
    ? rewritten.replace(/<\/body>(?![\s\S]*<\/body>)/i, `${pixel}</body>`)
    : `${rewritten}${pixel}`
}
