import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { listContactFields } from '../contacts/fields.js'
import type { WorkflowFields } from './schemas.js'

type TypedField = WorkflowFields['typedFields'][number]

/** How many of the newest events are read for their fields: enough to see every shape in use, bounded in cost. */
const eventSampleSize = 1_000

/** The field types a CONDITION editor offers; JSON objects, arrays and nulls read as text. */
function fieldType(jsonType: string): TypedField['type'] {
  return jsonType === 'number' || jsonType === 'boolean' || jsonType === 'date' ? jsonType : 'string'
}

/** The `event.<key>` fields in the newest events of that name (of any name without one), typed by their most common JSON type. */
async function listEventFields(db: Executor, projectId: string, eventName: string | undefined): Promise<TypedField[]> {
  const byName: SQL = eventName === undefined ? sql`` : sql` AND name = ${eventName}`
  const result = await db.execute<{ key: string; type: string }>(sql`
    SELECT DISTINCT ON (entry.key) entry.key, jsonb_typeof(entry.value) AS type
    FROM (
      SELECT data FROM events WHERE project_id = ${projectId}${byName}
      ORDER BY created_at DESC LIMIT ${eventSampleSize}
    ) AS sample, jsonb_each(CASE WHEN jsonb_typeof(sample.data) = 'object' THEN sample.data ELSE '{}' END) AS entry
    GROUP BY entry.key, jsonb_typeof(entry.value)
    ORDER BY entry.key, count(*) DESC`)
  return result.rows.map((row) => ({ field: `event.${row.key}`, type: fieldType(row.type), category: 'Event Data' }))
}

/**
 * `GET /workflows/fields`: what a CONDITION step can test, Plunk's names: `contact.<standard field>`,
 * `contact.data.<key>` (every key the project's contacts carry) and `event.<key>` (keys of the trigger event seen in
 * its newest stored events), sorted by name.
 */
export async function listWorkflowFields(
  db: Executor,
  projectId: string,
  eventName: string | undefined,
): Promise<WorkflowFields> {
  const [contactFields, eventFields] = await Promise.all([
    listContactFields(db, projectId),
    listEventFields(db, projectId, eventName),
  ])
  const typedFields: TypedField[] = [
    ...contactFields.fields.map(
      (field): TypedField =>
        field.standard
          ? { field: `contact.${field.field}`, type: fieldType(field.type), category: 'Contact Fields' }
          : { field: `contact.data.${field.field}`, type: fieldType(field.type), category: 'Custom Data' },
    ),
    ...eventFields,
  ].sort((a, b) => a.field.localeCompare(b.field))
  return { fields: typedFields.map((field) => field.field), typedFields, count: typedFields.length }
}
