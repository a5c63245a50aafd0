import { inArray } from 'drizzle-orm'
import type { Config } from '../../config.js'
import type { AppContext } from '../../context.js'
import { campaigns, contacts } from '../../db/schema/index.js'
import { contactLinks } from '../../mail/outbound/contact-render.js'
import type { Personalisation } from '../delivery/deliver.js'
import type { ClaimedEmail } from '../delivery/sql.js'

type CampaignContent = Pick<typeof campaigns.$inferSelect, 'id' | 'subject' | 'body' | 'type' | 'status'>
type Recipient = Pick<typeof contacts.$inferSelect, 'id' | 'email' | 'subscribed' | 'data'>

/** Why a queued campaign email is not sent after all; each is final for that email. */
const personalisationErrors = {
  cancelled: 'campaign cancelled before this email was sent',
  deleted: 'contact deleted before this email was sent',
  unsubscribed: 'contact unsubscribed before this email was sent',
} as const

/**
 * Decides, for each claimed campaign email, whether it still goes out and what its compose thread renders: the
 * campaign's subject and body with its contact's data as the contact is now, its unsubscribe links and
 * List-Unsubscribe headers. Two queries per claimed batch, whatever its size. A campaign cancelled since the email
 * was queued, a contact deleted since, or (for all but TRANSACTIONAL campaigns) one unsubscribed since, stops the
 * email here, before the transport.
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
  for (const email of emails) {
    const campaign = email.campaignId ? campaignsById.get(email.campaignId) : undefined
    const contact = email.contactId ? contactsById.get(email.contactId) : undefined
    result.set(email.id, personalise(email, campaign, contact, ctx.config))
  }
  return result
}

function personalise(
  email: ClaimedEmail,
  campaign: CampaignContent | undefined,
  contact: Recipient | undefined,
  config: Config,
): Personalisation {
  if (!campaign || (campaign.status !== 'SENDING' && campaign.status !== 'SENT')) {
    return { error: personalisationErrors.cancelled }
  }
  if (!contact) return { error: personalisationErrors.deleted }
  if (!contact.subscribed && campaign.type !== 'TRANSACTIONAL') return { error: personalisationErrors.unsubscribed }
  // Naming the campaign makes an unsubscribe through this email count in its `unsubscribedCount`.
  const subject = { projectId: email.projectId, contactId: contact.id, campaignId: campaign.id }
  return {
    render: {
      subject: campaign.subject,
      body: campaign.body,
      contact: { id: contact.id, email: contact.email, data: contact.data },
      links: contactLinks(config, subject),
      listUnsubscribe: true,
    },
  }
}
