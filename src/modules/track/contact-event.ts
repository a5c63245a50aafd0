import { and, eq } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { contacts, emails } from '../../db/schema/index.js'
import { notFound } from '../../errors.js'
import { publishEvents } from '../../events/bus.js'
import { isReservedEventName } from '../../events/names.js'
import { eventDataFrom } from '../contacts/data-rules.js'
import { reservedEventError } from '../event-log/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import type { ContactEventBody } from './schemas.js'
import type { TrackResult } from './service.js'

/**
 * Plunk's `/events/track` (`{name, contactId, emailId?, data?}`): the event `/v1/track` would store for that contact
 * (same name, contact and data), with `emailId` added to its data as `email.*` events carry it, since events have
 * no column of their own for it. Like Plunk, it records the event only: the contact's data is left as it is. The
 * contact and the email must be the caller's project's (404 otherwise); the contact is held (key share) until the
 * event is in, so a concurrent delete waits rather than failing the insert.
 */
export async function trackContactEvent(
  db: Database,
  projectId: string,
  input: ContactEventBody,
  claim?: IdempotencyClaim,
): Promise<TrackResult> {
  if (isReservedEventName(input.name)) throw reservedEventError(input.name, 'name')
  return db.transaction(async (tx) => {
    if (claim) await claimIdempotencyKey(tx, projectId, claim)
    const [contact] = await tx
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.id, input.contactId), eq(contacts.projectId, projectId)))
      .for('key share')
    if (!contact) throw notFound('Contact')
    if (input.emailId) {
      const [email] = await tx
        .select({ id: emails.id })
        .from(emails)
        .where(and(eq(emails.id, input.emailId), eq(emails.projectId, projectId)))
      if (!email) throw notFound('Email')
    }
    const data = { ...eventDataFrom(input.data), ...(input.emailId ? { emailId: input.emailId } : {}) }
    const [event] = await publishEvents(tx, [{ projectId, contactId: contact.id, name: input.name, data }])
    if (!event) throw new Error('tracked event was not published')
    return { contact: contact.id, event: event.id, timestamp: event.createdAt }
  })
}
