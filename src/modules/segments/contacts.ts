import { type SQL, sql } from 'drizzle-orm'
import { conditionSql, countMatchingContacts, prepareCondition } from '../../conditions/index.js'
import type { Executor } from '../../db/client.js'
import { pageOf } from '../../http/pagination.js'
import { type ContactRow, toContactView } from '../contacts/sql.js'
import type { SegmentContactsPage, SegmentContactsQuery } from './schemas.js'
import { findSegment, type Segment } from './service.js'
import { countActiveMembers } from './sql.js'

/** The columns of a `ContactRow`, read from contacts aliased `c`. */
export const contactColumns = sql.raw(
  'c.id, c.email, c.subscribed, c.snoozed_until, c.data, c.created_at, c.updated_at',
)

/** A page of contacts and how many there are in all. */
type Listing = { rows: SQL; total: () => Promise<number> }

/** A STATIC segment's active members, the most recently added first. */
function staticListing(db: Executor, segment: Segment): Listing {
  return {
    rows: sql`SELECT ${contactColumns} FROM segment_memberships m JOIN contacts c ON c.id = m.contact_id
      WHERE m.segment_id = ${segment.id} AND m.exited_at IS NULL
      ORDER BY m.entered_at DESC, m.contact_id DESC`,
    total: () => countActiveMembers(db, segment.id),
  }
}

/** A DYNAMIC segment's contacts as of now (not its tracked membership), newest first; subscription not filtered. */
async function dynamicListing(db: Executor, segment: Segment): Promise<Listing> {
  if (!segment.condition)
    return { rows: sql`SELECT ${contactColumns} FROM contacts c WHERE false`, total: async () => 0 }
  const prepared = await prepareCondition(db, segment.projectId, segment.condition, 'condition')
  return {
    rows: sql`SELECT ${contactColumns} FROM contacts c
      WHERE c.project_id = ${segment.projectId} AND ${conditionSql(prepared, sql`c`)}
      ORDER BY c.created_at DESC, c.id DESC`,
    total: () => countMatchingContacts(db, segment.projectId, prepared),
  }
}

export async function listSegmentContacts(
  db: Executor,
  projectId: string,
  segmentId: string,
  query: SegmentContactsQuery,
): Promise<SegmentContactsPage> {
  const segment = await findSegment(db, projectId, segmentId)
  const listing = segment.type === 'STATIC' ? staticListing(db, segment) : await dynamicListing(db, segment)
  const [page, total] = await Promise.all([
    db.execute<ContactRow>(sql`${listing.rows} LIMIT ${query.pageSize} OFFSET ${(query.page - 1) * query.pageSize}`),
    listing.total(),
  ])
  return pageOf(page.rows.map(toContactView), total, query)
}
