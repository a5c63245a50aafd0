import type { AppContext } from '../../context.js'
import { contactIdOfMailbox, unsubscribeTokenOfAddress } from '../../mail/outbound/list-unsubscribe.js'
import { findMailboxContact, setSubscriptionFromLink } from '../subscriptions/service.js'

/** The token of an `unsubscribe+TOKEN@INBOUND_DOMAIN` recipient; undefined for any other address. */
export function unsubscribeTokenOfRecipient(ctx: AppContext, address: string): string | undefined {
  const domain = ctx.config.inboundDomain
  return domain ? unsubscribeTokenOfAddress(address, domain) : undefined
}

/** Whether the token was signed by us, so the mailbox exists; checked without the database. */
export function isValidUnsubscribeToken(ctx: AppContext, token: string): boolean {
  return contactIdOfMailbox(ctx.config.secret, token) !== undefined
}

/**
 * The mailto form of List-Unsubscribe (RFC 2369): any mail to the address unsubscribes its contact, like a POST
 * to the https form. `contact.unsubscribed` is published only for a real flip, so a repeat changes nothing;
 * a contact deleted since the email was sent is nothing to do.
 */
export async function unsubscribeByMail(ctx: AppContext, token: string): Promise<void> {
  const contact = await findMailboxContact(ctx.db, ctx.config.secret, token)
  if (contact) await setSubscriptionFromLink(ctx.db, contact, false)
}
