import type { SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import type { QueryResult } from 'pg'
import type { Executor } from './client.js'

// The casing of the database client (client.ts), so columns render the same.
const dialect = new PgDialect({ casing: 'snake_case' })

/**
 * Runs `query` as a named prepared statement of its connection, like `db.execute` otherwise (same rows, same type
 * parsing, inside a transaction when given one). PostgreSQL then parses and plans it once per connection instead
 * of at every call. Only where that pays: a generic plan can run slower than one made for the values (the
 * transactional send's statements, named, saved their planning and lost as much running). The text for a `name`
 * must never vary, only its parameters (PostgreSQL refuses a second text under a name it knows).
 */
export async function executeNamed<Row extends Record<string, unknown>>(
  db: Executor,
  name: string,
  query: SQL,
): Promise<QueryResult<Row>> {
  const prepared = db._.session.prepareQuery<{ execute: QueryResult<Row>; all: unknown; values: unknown }>(
    dialect.sqlToQuery(query),
    undefined,
    name,
    false,
  )
  return prepared.execute()
}
