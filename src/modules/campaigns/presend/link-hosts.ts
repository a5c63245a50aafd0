import { isIP } from 'node:net'

/**
 * Public URL shorteners. Spam filters score links through them (SpamAssassin's URI_* shortener rules, URIBL lists
 * of abused ones): the destination is hidden, and spammers use them to dodge domain blocklists.
 */
const shortenerHosts: ReadonlySet<string> = new Set([
  'bit.ly',
  'bitly.com',
  'j.mp',
  'tinyurl.com',
  't.co',
  'goo.gl',
  'ow.ly',
  'is.gd',
  'v.gd',
  'buff.ly',
  'rebrand.ly',
  'cutt.ly',
  'shorturl.at',
  'tiny.cc',
  'rb.gy',
  'bl.ink',
  't.ly',
  's.id',
  'lnkd.in',
  'bit.do',
  'adf.ly',
  'shorte.st',
  'soo.gd',
  'qr.ae',
  'po.st',
  'x.co',
  'db.tt',
  'tr.im',
  'cli.gs',
  'clck.ru',
  'u.to',
  'tiny.one',
  'shorturl.com',
  'short.io',
  'snip.ly',
  'mcaf.ee',
  'su.pr',
  'trib.al',
  'dlvr.it',
  'ift.tt',
])

export type LinkRisk = 'shortener' | 'ip'

// Liquid in a link is filled per contact; what stays around it still names the host (`https://bit.ly/{{ code }}`).
const liquid = /\{\{.*?\}\}|\{%.*?%\}/g

/** The host a link leads to, lower case, without brackets; undefined for relative, mailto: and templated hosts. */
function hostOf(link: string): string | undefined {
  if (!/^(https?:)?\/\//i.test(link)) return undefined
  const filled = link.replace(liquid, 'x')
  const absolute = filled.startsWith('//') ? `https:${filled}` : filled
  if (!URL.canParse(absolute)) return undefined
  // The URL parser also reads the decimal, octal and hex IPv4 forms (http://3232235777/) as dotted addresses.
  return new URL(absolute).hostname.toLowerCase().replace(/^\[|\]$/g, '')
}

/** Why a link would cost the email with spam filters, if it would. */
export function riskOfLink(link: string): LinkRisk | undefined {
  const host = hostOf(link)
  if (!host) return undefined
  if (isIP(host) !== 0) return 'ip'
  const bare = host.startsWith('www.') ? host.slice(4) : host
  return shortenerHosts.has(bare) ? 'shortener' : undefined
}
