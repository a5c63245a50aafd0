import { type SQL, sql } from 'drizzle-orm'
import type { TestServer } from '../helpers/server.js'

type Column = { schema: string; table: string; column: string; type: string }

/** Every ordinary table of ours and pg-boss's with its columns, read from the database (so new tables count too). */
async function columns(server: TestServer): Promise<Column[]> {
  const result = await server.ctx.db.execute<{
    table_schema: string
    table_name: string
    column_name: string
    data_type: string
  }>(sql`
    SELECT c.table_schema, c.table_name, c.column_name, c.data_type
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema IN ('public', 'pgboss') AND t.table_type = 'BASE TABLE'
    ORDER BY 1, 2, 3`)
  return result.rows.map((row) => ({
    schema: row.table_schema,
    table: row.table_name,
    column: row.column_name,
    type: row.data_type,
  }))
}

/** Tables of the public schema with a `project_id` column. */
export async function projectTables(server: TestServer): Promise<string[]> {
  return (await columns(server))
    .filter((column) => column.schema === 'public' && column.column === 'project_id')
    .map((column) => column.table)
}

/** Rows per table whose `project_id` is this project (tables without rows left out). */
export async function projectRowCounts(server: TestServer, projectId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of await projectTables(server)) {
    const result = await server.ctx.db.execute<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM ${sql.identifier(table)} WHERE project_id = ${projectId}`,
    )
    const count = result.rows[0]?.count ?? 0
    if (count > 0) counts[table] = count
  }
  return counts
}

/** The `id` of every row of the project in the given tables (those that have a uuid id column). */
export async function ownedIds(server: TestServer, projectId: string, tables?: readonly string[]): Promise<string[]> {
  const all = await columns(server)
  const withId = new Set(
    // Uuid ids only: a bigint id (email_history's) is a counter that could match anything, not project data.
    all
      .filter((column) => column.column === 'id' && column.type === 'uuid')
      .map((column) => `${column.schema}.${column.table}`),
  )
  const ids: string[] = []
  for (const table of tables ?? (await projectTables(server))) {
    if (!withId.has(`public.${table}`)) continue
    const result = await server.ctx.db.execute<{ id: string }>(
      sql`SELECT id::text AS id FROM ${sql.identifier(table)} WHERE project_id = ${projectId}`,
    )
    ids.push(...result.rows.map((row) => row.id))
  }
  return ids
}

/**
 * Every place in the database (any table of ours or pg-boss's, child tables without a project_id included) where
 * one of these ids still appears: in a uuid column, or inside a json or text column (job payloads, event data).
 */
export async function findReferences(server: TestServer, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return []
  const found: string[] = []
  const patterns = ids.map((id) => `%${id}%`)
  for (const { schema, table, column, type } of await columns(server)) {
    // The event bus's read position: the id of the last event handed out, whoever's it was, not project data.
    if (table === 'event_bus_positions') continue
    const target = sql`${sql.identifier(schema)}.${sql.identifier(table)}`
    const name = sql.identifier(column)
    let condition: SQL
    if (type === 'uuid') condition = sql`${name} = ANY(${sql.param(ids)}::uuid[])`
    else if (['jsonb', 'json', 'text', 'ARRAY'].includes(type)) {
      condition = sql`${name}::text LIKE ANY(${sql.param(patterns)}::text[])`
    } else continue
    const result = await server.ctx.db.execute<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM ${target} WHERE ${condition}`,
    )
    const count = result.rows[0]?.count ?? 0
    if (count > 0) found.push(`${schema}.${table}.${column}: ${count}`)
  }
  return found
}
