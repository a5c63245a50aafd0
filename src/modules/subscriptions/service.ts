import { and, eq, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { contacts, emails, projects } from '../../db/schema/index.js'
import { contactIdOfMailbox } from '../../mail/outbound/list-unsubscribe.js'
import {
  readPreviewToken,
  readSubscriptionToken,
  type SubscriptionPurpose,
} from '../../mail/outbound/subscription-links.js'
import { countCampaignUnsubscribe } from '../campaigns/stats.js'
import { setContactSubscription } from '../contacts/service.js'
import { insertCampaignUnsubscribe, insertHistory } from '../email-history/entries.js'

export type LinkedContact = {
  projectId: string
  projectName: string
  contactId: string
  email: string
  subscribed: boolean
  /** The campaign whose email the link came in; its unsubscribes count there. */
  campaignId: string | null
  /** The email the link came in, when its link names it: an unsubscribe shows on its timeline. */
  emailId: string | null
}

/** The contact behind a subscription link, or undefined for a forged link or a contact that no longer exists. */
export async function findLinkedContact(
  db: Database,
  secret: string,
  purpose: SubscriptionPurpose,
  token: string,
): Promise<LinkedContact | undefined> {
  const subject = readSubscriptionToken(secret, purpose, token)
  if (!subject) return undefined
  if ('emailId' in subject) return emailContact(db, subject.emailId)
  const contact = await linkedContact(
    db,
    and(eq(contacts.id, subject.contactId), eq(contacts.projectId, subject.projectId)),
  )
  return contact && { ...contact, campaignId: subject.campaignId ?? null, emailId: null }
}

const linkedContactColumns = {
  projectId: projects.id,
  projectName: projects.name,
  contactId: contacts.id,
  email: contacts.email,
  subscribed: contacts.subscribed,
}

/** The contact of the email a link names, in the email's project; undefined once the contact is deleted. */
async function emailContact(db: Database, emailId: string): Promise<LinkedContact | undefined> {
  const [row] = await db
    .select({ ...linkedContactColumns, campaignId: emails.campaignId, emailId: emails.id })
    .from(emails)
    .innerJoin(contacts, and(eq(contacts.id, emails.contactId), eq(contacts.projectId, emails.projectId)))
    .innerJoin(projects, eq(projects.id, emails.projectId))
    .where(eq(emails.id, emailId))
  return row
}

/** A campaign test's recipient behind a preview link, with the project's name; undefined for anything else. */
export async function findPreviewRecipient(
  db: Database,
  secret: string,
  purpose: SubscriptionPurpose,
  token: string,
): Promise<{ projectId: string; projectName: string; email: string } | undefined> {
  const subject = readPreviewToken(secret, purpose, token)
  if (!subject) return undefined
  const [project] = await db.select({ name: projects.name }).from(projects).where(eq(projects.id, subject.projectId))
  return project && { ...subject, projectName: project.name }
}

/** The contact behind an unsubscribe mailbox; its signed token names the contact alone, which names the project. */
export async function findMailboxContact(
  db: Database,
  secret: string,
  token: string,
): Promise<LinkedContact | undefined> {
  const contactId = contactIdOfMailbox(secret, token)
  const contact = contactId === undefined ? undefined : await linkedContact(db, eq(contacts.id, contactId))
  // The mailbox token names the contact alone: a local part has no room for a campaign id too.
  return contact && { ...contact, campaignId: null, emailId: null }
}

async function linkedContact(
  db: Database,
  where: SQL | undefined,
): Promise<Omit<LinkedContact, 'campaignId' | 'emailId'> | undefined> {
  const [row] = await db
    .select(linkedContactColumns)
    .from(contacts)
    .innerJoin(projects, eq(projects.id, contacts.projectId))
    .where(where)
  return row
}

/**
 * Sets the subscription from a link; `contact.(un)subscribed` is published only for a real change, and only a
 * real unsubscribe through a campaign's email counts in that campaign (the contact row is locked first, so a
 * mailbox provider's one-click POST and the recipient's own click count once).
 */
export async function setSubscriptionFromLink(
  db: Database,
  contact: LinkedContact,
  subscribed: boolean,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ subscribed: contacts.subscribed })
      .from(contacts)
      .where(and(eq(contacts.id, contact.contactId), eq(contacts.projectId, contact.projectId)))
      .for('update')
    await setContactSubscription(tx, contact.projectId, contact.contactId, subscribed)
    if (!before?.subscribed || subscribed) return
    if (contact.campaignId) await countCampaignUnsubscribe(tx, contact.projectId, contact.campaignId)
    if (contact.emailId) {
      const { emailId, projectId } = contact
      await insertHistory(tx, [{ emailId, projectId, at: new Date(), kind: 'unsubscribed', detail: { via: 'link' } }])
    } else if (contact.campaignId) {
      await insertCampaignUnsubscribe(tx, contact.projectId, contact.campaignId, contact.contactId)
    }
  })
}
