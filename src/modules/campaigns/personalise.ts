import { inArray } from 'drizzle-orm'
import { unsubscribeMailDomain } from '../../config.js'
import type { AppContext } from '../../context.js'
import { campaigns, contacts } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { listUnsubscribeHeaders } from '../../mail/outbound/list-unsubscribe.js'
import { renderEmail } from '../../mail/outbound/render.js'
import { withSubscriptionUrls } from '../../mail/outbound/subscription-links.js'
import type { Personalisation } from '../delivery/outbox.js'
import type { ClaimedEmail } from '../delivery/sql.js'

type CampaignContent = Pick<typeof campaigns.$inferSelect, 'id' | 'subject' | 'body' | 'type' | 'status'>
type Recipient = Pick<typeof contacts.$inferSelect, 'id' | 'email' | 'subscribed' | 'data'>

/** Why a queued campaign email is not sent after all; each is final for that email. */
export const personalisationErrors = {
  cancelled: 'campaign cancelled before this email was sent',
  deleted: 'contact deleted before this email was sent',
  unsubscribed: 'contact unsubscribed before this email was sent',
} as const

/**
 * Renders the claimed campaign emails, each for its contact as the contact is now: the campaign's subject and
 * body with the contact's data, its unsubscribe links and List-Unsubscribe headers. Two queries per claimed
 * batch, whatever its size. A campaign cancelled since the email was queued, a contact deleted since, or (for
 * all but TRANSACTIONAL campaigns) one unsubscribed since, stops the email here, before the transport.
 */
export async function personaliseCampaignEmails(
  ctx: AppContext,
  claimed: readonly ClaimedEmail[],
): Promise<Map<string, Personalisation>> {
  const emails = claimed.filter((email) => email.sourceType === 'CAMPAIGN' && email.campaignId !== null)
  const result = new Map<string, Personalisation>()
  if (emails.length === 0) return result
  const campaignIds = [...new Set(emails.flatMap((email) => (email.campaignId ? [email.campaignId] : [])))]
  const contactIds = [...new Set(emails.flatMap((email) => (email.contactId ? [email.contactId] : [])))]
  const [campaignRows, contactRows] = await Promise.all([
    ctx.db
      .select({
        id: campaigns.id,
        subject: campaigns.subject,
        body: campaigns.body,
        type: campaigns.type,
        status: campaigns.status,
      })
      .from(campaigns)
      .where(inArray(campaigns.id, campaignIds)),
    ctx.db
      .select({ id: contacts.id, email: contacts.email, subscribed: contacts.subscribed, data: contacts.data })
      .from(contacts)
      .where(inArray(contacts.id, contactIds)),
  ])
  const campaignsById = new Map(campaignRows.map((row) => [row.id, row]))
  const contactsById = new Map(contactRows.map((row) => [row.id, row]))
  await Promise.all(
    emails.map(async (email) => {
      const campaign = email.campaignId ? campaignsById.get(email.campaignId) : undefined
      const contact = email.contactId ? contactsById.get(email.contactId) : undefined
      result.set(email.id, await personalise(ctx, email, campaign, contact))
    }),
  )
  return result
}

async function personalise(
  ctx: AppContext,
  email: ClaimedEmail,
  campaign: CampaignContent | undefined,
  contact: Recipient | undefined,
): Promise<Personalisation> {
  if (!campaign || (campaign.status !== 'SENDING' && campaign.status !== 'SENT')) {
    return { error: personalisationErrors.cancelled }
  }
  if (!contact) return { error: personalisationErrors.deleted }
  if (!contact.subscribed && campaign.type !== 'TRANSACTIONAL') return { error: personalisationErrors.unsubscribed }
  // Naming the campaign makes an unsubscribe through this email count in its `unsubscribedCount`.
  const subject = { projectId: email.projectId, contactId: contact.id, campaignId: campaign.id }
  const { publicUrl, secret } = ctx.config
  try {
    const rendered = await renderEmail(
      campaign,
      withSubscriptionUrls({ id: contact.id, email: contact.email, data: contact.data }, publicUrl, secret, subject),
    )
    const headers = listUnsubscribeHeaders({
      publicUrl,
      secret,
      subject,
      inboundDomain: unsubscribeMailDomain(ctx.config),
    })
    return { subject: rendered.subject, html: rendered.html, headers }
  } catch (err) {
    if (err instanceof AppError) return { error: err.message }
    throw err
  }
}
