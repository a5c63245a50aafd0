import type { SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import type { QueryResult } from 'pg'
import type { Executor } from './client.js'

// The casing of the database client (client.ts), so columns render the same.
const dialect = new PgDialect({ casing: 'snake_case' })

/** Runs a built statement with its placeholders' values; rows as `db.execute` gives them. */
export type BuiltStatement<Values extends Record<string, unknown>> = <Row extends Record<string, unknown>>(
  db: Executor,
  values: Values,
) => Promise<QueryResult<Row>>

/**
 * A statement of a hot path rendered to its text once, at load, with `sql.placeholder(name)` for what changes per
 * call, and run as a named prepared statement of its connection: the query builder does not render it again
 * (drizzle's SQL building was ~10 % of the server's busy time under `/v1/send` load) and PostgreSQL parses and
 * plans it once per connection. Values that change per call must be placeholders, never literals in `query`:
 * PostgreSQL refuses a second text under a name it knows. As for `executeNamed`, only for statements whose generic
 * plan is as good as a custom one (parameters that do not sway the plan, e.g. one jsonb of rows).
 *
 * Named statements live on one server connection: behind a pooler that hands a transaction to any server
 * connection (PgBouncer's transaction mode without its prepared-statement support, before 1.21) they fail. The
 * outbox claim and the SMTP relay already rely on them; Mailroom connects to PostgreSQL directly.
 */
export function buildStatement<Values extends Record<string, unknown>>(
  name: string,
  query: SQL,
): BuiltStatement<Values> {
  const compiled = dialect.sqlToQuery(query)
  return <Row extends Record<string, unknown>>(db: Executor, values: Values) =>
    db._.session
      .prepareQuery<{ execute: QueryResult<Row>; all: unknown; values: unknown }>(compiled, undefined, name, false)
      .execute(values)
}
