import { signPayload, verifyPayload } from '../signed-links.js'
import { readSubscriptionToken, type SubscriptionSubject, subscriptionUrl } from './subscription-links.js'

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

const mailboxPrefix = 'unsubscribe+'

export function listUnsubscribeHeaders(options: ListUnsubscribeOptions): Record<string, string> {
  const links = [`<${subscriptionUrl(options.publicUrl, options.secret, 'unsubscribe', options.subject)}>`]
  if (options.inboundDomain) {
    const token = unsubscribeMailboxToken(options.secret, options.subject.contactId)
    links.push(`<mailto:${mailboxPrefix}${token}@${options.inboundDomain}>`)
  }
  return {
    'List-Unsubscribe': links.join(', '),
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  }
}

/**
 * The token of a contact's unsubscribe mailbox: the contact id's 16 bytes and a 16-byte MAC, 45 characters, so
 * `unsubscribe+TOKEN` fits the 64 octets RFC 5321 allows a local part (the contact id names the project too).
 * Its alphabet (base64url and one dot) is a valid dot-atom, so the address needs no quoting.
 */
export function unsubscribeMailboxToken(secret: string, contactId: string): string {
  return signPayload(secret, 'unsubscribe-mailbox', Buffer.from(contactId.replaceAll('-', ''), 'hex'))
}

/** The contact id of an unsubscribe mailbox token, or undefined for one we did not sign. */
export function readUnsubscribeMailboxToken(secret: string, token: string): string | undefined {
  const bytes = verifyPayload(secret, 'unsubscribe-mailbox', token)
  if (bytes?.length !== 16) return undefined
  const hex = bytes.toString('hex')
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-')
}

/**
 * The contact an unsubscribe mailbox belongs to, or undefined for a token we did not sign. Mail sent before
 * the short mailbox tokens carries the unsubscribe link's token instead, which still works.
 */
export function contactIdOfMailbox(secret: string, token: string): string | undefined {
  const mailbox = readUnsubscribeMailboxToken(secret, token)
  if (mailbox) return mailbox
  const link = readSubscriptionToken(secret, 'unsubscribe', token)
  return link && 'contactId' in link ? link.contactId : undefined
}

/**
 * The unsubscribe token of a recipient address such as `unsubscribe+TOKEN@inbound.example.com`, or undefined
 * when the address is not an unsubscribe mailbox of that domain. Read its contact with `contactIdOfMailbox`.
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
