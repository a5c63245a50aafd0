import { createHash } from 'node:crypto'
import type { SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import type { QueryResult } from 'pg'
import type { Executor, Transaction } from './client.js'

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

// Names by text, remembered for the few texts a hot path has (a hash of a long text costs more than a lookup).
const namesByText = new Map<string, string>()
const rememberedNames = 256

function nameOfText(text: string): string {
  const known = namesByText.get(text)
  if (known !== undefined) return known
  const name = `by-text-${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`
  if (namesByText.size < rememberedNames) namesByText.set(text, name)
  return name
}

/**
 * A transaction whose `execute` runs every statement as a named one, named after its text: for a hot path whose
 * statements come from other modules and whose batches stay small (the SMTP relay's group commit of 1 to 4
 * messages), where parsing and planning cost more than running. Each distinct text (a batch size of a multi-row
 * insert, an optional clause) becomes a statement of its own, prepared once per connection. Not for bulk paths:
 * there a generic plan can run slower than one made for the values (see `executeNamed`).
 */
export function withNamedStatements(tx: Transaction): Transaction {
  const execute = (query: SQL) => {
    const compiled = dialect.sqlToQuery(query)
    return tx._.session.prepareQuery(compiled, undefined, nameOfText(compiled.sql), false).execute()
  }
  return new Proxy(tx, {
    get: (target, property, receiver) => (property === 'execute' ? execute : Reflect.get(target, property, receiver)),
  })
}
