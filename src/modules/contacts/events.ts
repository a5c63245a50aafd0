import type { Executor } from '../../db/client.js'
import type { EventListQuery } from '../event-log/schemas.js'
import { type EventPage, listEvents } from '../event-log/service.js'
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
