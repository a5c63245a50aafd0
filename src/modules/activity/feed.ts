import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { getContact } from '../contacts/service.js'
import type { EventView } from '../events/schemas.js'
import { pageEvents } from '../events/service.js'
import type { ActivityListQuery, ActivityView } from './schemas.js'
import { activityTypeOf, eventNamesOfTypes } from './types.js'

function toActivityView(event: EventView): ActivityView {
  return {
    id: event.id,
    type: activityTypeOf(event.name),
    name: event.name,
    timestamp: event.createdAt,
    contact: event.contactId && event.email !== null ? { id: event.contactId, email: event.email } : null,
    data: event.data,
  }
}

/**
 * The activity feed, newest first. Every kind of activity that exists today (sends, deliveries, opens, clicks,
 * bounces, complaints, inbound mail, subscription changes, segment moves, tracked events) is a row of
 * `events`, so the feed is the event log's keyset scan on (created_at, id) with activity types on top.
 * Workflow runs join later as a UNION ALL source ordered on the same key.
 */
export async function listActivity(
  db: Executor,
  projectId: string,
  query: ActivityListQuery,
): Promise<{ data: ActivityView[]; cursor: string; hasMore: boolean; total: number }> {
  if (query.contactId) await getContact(db, projectId, query.contactId)
  const filters: SQL[] = []
  if (query.types) filters.push(eventNamesOfTypes(sql.raw('e.name'), query.types))
  if (query.contactId) filters.push(sql`e.contact_id = ${query.contactId}`)
  if (query.startDate) filters.push(sql`e.created_at >= ${query.startDate}`)
  if (query.endDate) filters.push(sql`e.created_at < ${query.endDate}`)
  const page = await pageEvents(db, projectId, filters, query)
  return { ...page, data: page.data.map(toActivityView) }
}
