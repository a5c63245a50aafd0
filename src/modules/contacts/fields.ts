import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { notFound } from '../../errors.js'
import { findReferences } from '../references/where-used.js'
import type { UsageView } from './schemas.js'

const standardFields = [
  { field: 'email', type: 'string' },
  { field: 'subscribed', type: 'boolean' },
  { field: 'createdAt', type: 'date' },
  { field: 'updatedAt', type: 'date' },
] as const

type FieldTypeCount = { key: string; type: string; count: number }

/** Standard fields plus every `data` key, typed by its most frequent JSON type, with coverage in percent. */
export async function listContactFields(db: Executor, projectId: string) {
  const [totals, counts] = await Promise.all([
    db.execute<{ total: number }>(sql`SELECT count(*)::int AS total FROM contacts WHERE project_id = ${projectId}`),
    db.execute<FieldTypeCount>(sql`
      SELECT entry.key, jsonb_typeof(entry.value) AS type, count(*)::int AS count
      FROM contacts, jsonb_each(contacts.data) AS entry
      WHERE contacts.project_id = ${projectId}
      GROUP BY entry.key, jsonb_typeof(entry.value)
      ORDER BY entry.key, count(*) DESC`),
  ])
  const total = totals.rows[0]?.total ?? 0
  const byKey = new Map<string, { type: string; count: number }>()
  for (const row of counts.rows) {
    const seen = byKey.get(row.key)
    // Rows come most frequent type first, so the first one names the field's type.
    if (seen) seen.count += row.count
    else byKey.set(row.key, { type: row.type, count: row.count })
  }
  const coverage = (count: number) => (total === 0 ? 0 : Math.round((count / total) * 10_000) / 100)
  return {
    totalContacts: total,
    fields: [
      ...standardFields.map((field) => ({ ...field, standard: true, count: total, coverage: total === 0 ? 0 : 100 })),
      ...[...byKey].map(([field, { type, count }]) => ({
        field,
        type,
        standard: false,
        count,
        coverage: coverage(count),
      })),
    ],
  }
}

export async function listFieldValues(db: Executor, projectId: string, field: string, limit: number) {
  const result = await db.execute<{ value: unknown; count: number }>(sql`
    SELECT value, count(*)::int AS count
    FROM (SELECT data -> ${field} AS value FROM contacts WHERE project_id = ${projectId} AND data ? ${field}) AS field
    GROUP BY value
    ORDER BY count(*) DESC, value
    LIMIT ${limit}`)
  if (result.rows.length === 0) throw notFound('Field')
  return { field, values: result.rows }
}

/** Segments, campaigns and workflows (CONDITION fields, UPDATE_CONTACT updates) that reference `data.<field>`. */
export async function findFieldUsage(db: Executor, projectId: string, field: string): Promise<UsageView> {
  return findReferences(db, projectId, { dataKey: field })
}

export async function deleteContactField(db: Executor, projectId: string, field: string) {
  const result = await db.execute(sql`
    UPDATE contacts SET data = data - ${field}, updated_at = now()
    WHERE project_id = ${projectId} AND data ? ${field}`)
  const contacts = result.rowCount ?? 0
  if (contacts === 0) throw notFound('Field')
  return { field, contacts }
}
