import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import {
  decodeCursor,
  type KeysetPage,
  keysetPage,
  timestampText,
  timestampTextPattern,
  uuidPattern,
} from '../../db/keyset.js'
import { AppError, validationError } from '../../errors.js'
import { isReservedEventName } from '../../events/names.js'
import { findReferences } from '../references/where-used.js'
import type { EventListQuery, EventUsage, EventView } from './schemas.js'

type EventRow = {
  id: string
  name: string
  contact_id: string | null
  email: string | null
  data: Record<string, unknown>
  created_at: string
  sort_value: string
}

function toEventView(row: EventRow): EventView {
  return {
    id: row.id,
    name: row.name,
    contactId: row.contact_id,
    email: row.email,
    data: row.data,
    createdAt: new Date(row.created_at),
  }
}

/** Newest first, keyset-paginated on (created_at, id); `contactId` (checked by the caller) narrows to one contact. */
export async function listEvents(
  db: Executor,
  projectId: string,
  query: EventListQuery,
  contactId?: string,
): Promise<EventPage> {
  const filters: SQL[] = []
  if (contactId) filters.push(sql`e.contact_id = ${contactId}`)
  if (query.name) filters.push(sql`e.name = ${query.name}`)
  return pageEvents(db, projectId, filters, query)
}

export type EventPage = KeysetPage<EventView>

/**
 * One page of the project's events matching `filters` (SQL on alias `e`), newest first, keyset-paginated on
 * (created_at, id): a page never repeats or skips a row that was committed when the listing started.
 * Shared by the event list and the activity feed; `countTotal` replaces the first page's COUNT over the log.
 */
export async function pageEvents(
  db: Executor,
  projectId: string,
  filters: readonly SQL[],
  page: { limit: number; cursor?: string | undefined },
  countTotal?: () => Promise<number>,
): Promise<EventPage> {
  const where = sql.join([sql`e.project_id = ${projectId}`, ...filters], sql` AND `)
  let keyset = sql``
  if (page.cursor) {
    const parts = decodeCursor(page.cursor, 2)
    if (!parts || !timestampTextPattern.test(parts[0] ?? '') || !uuidPattern.test(parts[1] ?? '')) {
      throw new AppError('BAD_REQUEST', 'Invalid cursor')
    }
    keyset = sql` AND (e.created_at, e.id) < (${parts[0]}::timestamptz, ${parts[1]}::uuid)`
  }
  const result = await db.execute<EventRow>(sql`
    SELECT e.id, e.name, e.contact_id, c.email, e.data, e.created_at, ${timestampText(sql.raw('e.created_at'))} AS sort_value
    FROM events e LEFT JOIN contacts c ON c.id = e.contact_id
    WHERE ${where}${keyset}
    ORDER BY e.created_at DESC, e.id DESC
    LIMIT ${page.limit + 1}`)
  return keysetPage(result.rows, page, {
    view: toEventView,
    cursorOf: (last) => [last.sort_value, last.id],
    countTotal:
      countTotal ??
      (async () => {
        const counted = await db.execute<{ total: number }>(
          sql`SELECT count(*)::int AS total FROM events e WHERE ${where}`,
        )
        return counted.rows[0]?.total ?? 0
      }),
  })
}

export async function getEventStats(db: Executor, projectId: string) {
  const [totals, top] = await Promise.all([
    db.execute<{
      total: number
      last24Hours: number
      last7Days: number
      last30Days: number
      uniqueContacts: number
    }>(sql`
      SELECT count(*)::int AS "total",
        (count(*) FILTER (WHERE created_at > now() - interval '24 hours'))::int AS "last24Hours",
        (count(*) FILTER (WHERE created_at > now() - interval '7 days'))::int AS "last7Days",
        (count(*) FILTER (WHERE created_at > now() - interval '30 days'))::int AS "last30Days",
        count(DISTINCT contact_id)::int AS "uniqueContacts"
      FROM events WHERE project_id = ${projectId}`),
    db.execute<{ name: string; count: number }>(sql`
      SELECT name, count(*)::int AS count FROM events WHERE project_id = ${projectId}
      GROUP BY name ORDER BY count(*) DESC, name LIMIT 10`),
  ])
  const row = totals.rows[0] ?? { total: 0, last24Hours: 0, last7Days: 0, last30Days: 0, uniqueContacts: 0 }
  return { ...row, topEvents: top.rows }
}

export async function listEventNames(db: Executor, projectId: string) {
  const result = await db.execute<{ name: string; count: number; last: string }>(sql`
    SELECT name, count(*)::int AS count, max(created_at) AS last FROM events
    WHERE project_id = ${projectId} GROUP BY name ORDER BY name`)
  return {
    data: result.rows.map((row) => ({
      name: row.name,
      count: row.count,
      lastTrackedAt: new Date(row.last),
      reserved: isReservedEventName(row.name),
    })),
  }
}

/** Segments, campaign audiences and workflows (EVENT trigger, WAIT_FOR_EVENT steps) that reference the event. */
export async function findEventUsage(db: Executor, projectId: string, name: string): Promise<EventUsage> {
  return { event: name, ...(await findReferences(db, projectId, { eventName: name })) }
}

export function reservedEventError(name: string, field = 'event'): AppError {
  return validationError([
    { field, code: 'reserved_event', message: `"${name}" is reserved for events the service emits itself` },
  ])
}

export async function deleteEventsByName(
  db: Executor,
  projectId: string,
  name: string,
): Promise<{ event: string; deleted: number }> {
  if (isReservedEventName(name)) throw reservedEventError(name)
  const usage = await findEventUsage(db, projectId, name)
  // A campaign's audience is read once, at its send: deleting the events it names is the sender's choice.
  if (usage.segments.length > 0 || usage.workflows.length > 0) {
    throw new AppError('CONFLICT', 'The event is used by segments or workflows; remove it from them first', {
      details: usage,
    })
  }
  const deleted = await db.execute(sql`DELETE FROM events WHERE project_id = ${projectId} AND name = ${name}`)
  if (!deleted.rowCount) throw new AppError('NOT_FOUND', 'No events with this name')
  // The analytics rollups forget the name too, so top events and stats agree with the log.
  await db.execute(sql`DELETE FROM event_counts_hourly WHERE project_id = ${projectId} AND name = ${name}`)
  return { event: name, deleted: deleted.rowCount }
}
