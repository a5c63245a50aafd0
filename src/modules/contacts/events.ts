import type { Executor } from '../../db/client.js'
import type { EventListQuery } from '../events/schemas.js'
import { type EventPage, listEvents } from '../events/service.js'
import { getContact } from './service.js'

/** `GET /events/contact/:contactId`: one contact's events, newest first; 404 for another project's contact. */
export async function listContactEvents(
  db: Executor,
  projectId: string,
  contactId: string,
  query: EventListQuery,
): Promise<EventPage> {
  await getContact(db, projectId, contactId)
  return listEvents(db, projectId, query, contactId)
}
