import { sql } from 'drizzle-orm'
import { conditionSql, countMatchingContacts, prepareCondition } from '../../conditions/index.js'
import type { Executor } from '../../db/client.js'
import { type ContactRow, toContactView } from '../contacts/sql.js'
import { contactColumns } from './contacts.js'
import type { SegmentPreview, SegmentPreviewBody } from './schemas.js'

/**
 * What a DYNAMIC segment with this condition would hold now, before it is saved: how many contacts match and the
 * newest few, read as `GET /segments/:id/contacts` reads a saved one (live, subscription not filtered), so the
 * editor's count equals the saved segment's. A bad condition is the same 422 as saving it, at `condition.…`.
 */
export async function previewSegment(
  db: Executor,
  projectId: string,
  body: SegmentPreviewBody,
): Promise<SegmentPreview> {
  const prepared = await prepareCondition(db, projectId, body.condition, 'condition', { segmentId: body.segmentId })
  const now = new Date()
  const [total, rows] = await Promise.all([
    countMatchingContacts(db, projectId, prepared, now),
    db.execute<ContactRow>(sql`
      SELECT ${contactColumns} FROM contacts c
      WHERE c.project_id = ${projectId} AND ${conditionSql(prepared, sql`c`, now)}
      ORDER BY c.created_at DESC, c.id DESC LIMIT ${body.limit}`),
  ])
  return { total, contacts: rows.rows.map(toContactView) }
}
