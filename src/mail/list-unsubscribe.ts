import { type SubscriptionSubject, subscriptionToken, subscriptionUrl } from './subscription-links.js'

/**
 * RFC 2369 / RFC 8058 one-click unsubscribe headers for campaign and marketing mail. Mailbox providers POST
 * `List-Unsubscribe=One-Click` to the https URL, so the unsubscribe route must unsubscribe on POST without a
 * confirmation step (and only show the confirmation page on GET, which link scanners follow). RFC 8058 also
 * asks that both headers be covered by the DKIM signature: sign them when composing.
 */
export type ListUnsubscribeOptions = {
  publicUrl: string
  secret: string
  subject: SubscriptionSubject
  /** Domain the inbound receiver accepts mail for; without one no mailto: alternative is offered. */
  inboundDomain?: string | undefined
}

export const listUnsubscribeHeaderNames = ['List-Unsubscribe', 'List-Unsubscribe-Post'] as const

const mailboxPrefix = 'unsubscribe+'

export function listUnsubscribeHeaders(options: ListUnsubscribeOptions): Record<string, string> {
  const links = [`<${subscriptionUrl(options.publicUrl, options.secret, 'unsubscribe', options.subject)}>`]
  if (options.inboundDomain) {
    // The token's alphabet (base64url and one dot) is a valid dot-atom local part, so it needs no quoting.
    const token = subscriptionToken(options.secret, 'unsubscribe', options.subject)
    links.push(`<mailto:${mailboxPrefix}${token}@${options.inboundDomain}>`)
  }
  return {
    'List-Unsubscribe': links.join(', '),
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  }
}

/**
 * The unsubscribe token of a recipient address such as `unsubscribe+TOKEN@inbound.example.com`, or undefined
 * when the address is not an unsubscribe mailbox of that domain. Verify the token with `readSubscriptionToken`.
 */
export function unsubscribeTokenOfAddress(address: string, inboundDomain: string): string | undefined {
  const at = address.lastIndexOf('@')
  if (at < 0 || address.slice(at + 1).toLowerCase() !== inboundDomain.toLowerCase()) return undefined
  const local = address.slice(0, at)
  // The prefix may be case-folded by a relay; the token itself is case-sensitive and left alone.
  if (local.slice(0, mailboxPrefix.length).toLowerCase() !== mailboxPrefix) return undefined
  const token = local.slice(mailboxPrefix.length)
  return token === '' ? undefined : token
}
