import { type SQL, sql } from 'drizzle-orm'
import { newTimeOrderedUuid, timeOrderedUuid } from '../db/time-ordered-uuid.js'

/**
 * The one way rows get into `events`, for every writer (the bus, the contact upserts, segment membership).
 *
 * The bus hands events out in (tx_id, id) order, so within one transaction the id is the order subscribers see.
 * Time-ordered ids keep that order close to the order the events were made, and land every new row at the right
 * edge of the (tx_id, id) index the dispatcher reads; a random id (`randomUUID()`, `gen_random_uuid()`) would do
 * neither. Ids are made here and nowhere else.
 */

/** An event id for a writer that must know it before the insert (to return it, say). */
export function newEventId(): string {
  return newTimeOrderedUuid()
}

/**
 * `INSERT INTO events` of the rows `source` selects, its columns in this order: id (a `newEventId()`, or NULL to
 * have one made in the statement), project_id, contact_id, name, data. Usable as a CTE of a larger statement, and
 * followed by a RETURNING clause when the caller wants one.
 */
export function insertEvents(source: SQL): SQL {
  return sql`INSERT INTO events (id, project_id, contact_id, name, data)
    SELECT coalesce(event.id, ${timeOrderedUuid}), event.project_id, event.contact_id, event.name, event.data
    FROM (${source}) AS event(id, project_id, contact_id, name, data)`
}
