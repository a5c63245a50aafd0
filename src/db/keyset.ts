import { type SQL, sql } from 'drizzle-orm'

/**
 * Helpers for keyset (cursor) pagination. A cursor is an opaque base64url JSON array of strings; timestamps
 * travel as microsecond text because a JS Date would drop PostgreSQL's microseconds and repeat or skip rows.
 */
function encodeCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url')
}

/** The cursor's parts, or undefined when it is not one of ours (or has the wrong arity). */
export function decodeCursor(text: string, arity: number): string[] | undefined {
  try {
    const parts: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
    if (Array.isArray(parts) && parts.length === arity && parts.every((part) => typeof part === 'string')) {
      return parts
    }
  } catch {}
  return undefined
}

/** `column` as UTC text with microseconds, comparable again with `::timestamptz`. */
export function timestampText(column: SQL): SQL {
  return sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
}

/** Text made by `timestampText`, the only timestamp a cursor may carry back into SQL. */
export const timestampTextPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export type KeysetPage<Item> = { data: Item[]; cursor: string; hasMore: boolean; total: number }

/**
 * A page of a keyset query that fetched `limit + 1` rows: the extra row only tells that more follow. `total`
 * is counted on the first page only (no cursor) and is 0 after, as the spec's cursor lists say.
 */
export async function keysetPage<Row, Item>(
  rows: readonly Row[],
  page: { limit: number; cursor?: string | undefined },
  shape: { view(row: Row): Item; cursorOf(last: Row): string[]; countTotal(): Promise<number> },
): Promise<KeysetPage<Item>> {
  const shown = rows.slice(0, page.limit)
  const hasMore = rows.length > page.limit
  const last = shown.at(-1)
  return {
    data: shown.map((row) => shape.view(row)),
    cursor: last && hasMore ? encodeCursor(shape.cursorOf(last)) : '',
    hasMore,
    total: page.cursor ? 0 : await shape.countTotal(),
  }
}
