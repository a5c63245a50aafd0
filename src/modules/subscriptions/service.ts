import { and, eq, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { contacts, projects } from '../../db/schema/index.js'
import { contactIdOfMailbox } from '../../mail/outbound/list-unsubscribe.js'
import { readSubscriptionToken, type SubscriptionPurpose } from '../../mail/outbound/subscription-links.js'
import { setContactSubscription } from '../contacts/service.js'

export type LinkedContact = {
  projectId: string
  projectName: string
  contactId: string
  email: string
  subscribed: boolean
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
  return linkedContact(db, and(eq(contacts.id, subject.contactId), eq(contacts.projectId, subject.projectId)))
}

/** The contact behind an unsubscribe mailbox; its signed token names the contact alone, which names the project. */
export async function findMailboxContact(
  db: Database,
  secret: string,
  token: string,
): Promise<LinkedContact | undefined> {
  const contactId = contactIdOfMailbox(secret, token)
  return contactId === undefined ? undefined : linkedContact(db, eq(contacts.id, contactId))
}

async function linkedContact(db: Database, where: SQL | undefined): Promise<LinkedContact | undefined> {
  const [row] = await db
    .select({
      projectId: projects.id,
      projectName: projects.name,
      contactId: contacts.id,
      email: contacts.email,
      subscribed: contacts.subscribed,
    })
    .from(contacts)
    .innerJoin(projects, eq(projects.id, contacts.projectId))
    .where(where)
  return row
}

/** Sets the subscription from a link; `contact.(un)subscribed` is published only for a real change. */
export async function setSubscriptionFromLink(
  db: Database,
  contact: LinkedContact,
  subscribed: boolean,
): Promise<void> {
  await db.transaction((tx) => setContactSubscription(tx, contact.projectId, contact.contactId, subscribed))
}
