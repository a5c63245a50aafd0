import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import {
  decodeCursor,
  type KeysetPage,
  keysetPage,
  timestampText,
  timestampTextPattern,
  uuidPattern,
} from '../../db/keyset.js'
import { likeContaining } from '../../db/like.js'
import { AppError } from '../../errors.js'
import type { ContactListQuery, ContactView } from './schemas.js'
import { type ContactRow, contactColumns, toContactView } from './sql.js'

type Cursor = { value: string; id: string }

function decodeContactCursor(text: string, query: ContactListQuery): Cursor {
  const parts = decodeCursor(text, 4)
  if (parts) {
    const [sort, dir, value, id] = parts as [string, string, string, string]
    const validValue = sort === 'email' || timestampTextPattern.test(value)
    if (sort === query.sort && dir === query.dir && validValue && uuidPattern.test(id)) return { value, id }
  }
  throw new AppError('BAD_REQUEST', 'Invalid cursor: pass the cursor of the previous page with the same sort and dir')
}

type PageRow = ContactRow & { sort_value: string }

/**
 * Keyset pagination on (sort column, id): a page never repeats or skips a row that existed when the listing
 * started, whatever is inserted meanwhile. The cursor carries the sort it was made for and the last row's key.
 */
export async function listContacts(
  db: Executor,
  projectId: string,
  query: ContactListQuery,
): Promise<KeysetPage<ContactView>> {
  const filters: SQL[] = [sql`project_id = ${projectId}`]
  if (query.search) filters.push(sql`email LIKE ${likeContaining(query.search.trim().toLowerCase())}`)
  if (query.subscribed !== undefined) filters.push(sql`subscribed = ${query.subscribed === 'true'}`)
  const where = sql.join(filters, sql` AND `)

  const sortColumn = query.sort === 'email' ? sql.raw('email') : sql.raw('created_at')
  const sortValue = query.sort === 'email' ? sql.raw('email') : timestampText(sql.raw('created_at'))
  const direction = sql.raw(query.dir === 'asc' ? 'ASC' : 'DESC')
  const after = query.cursor ? decodeContactCursor(query.cursor, query) : undefined
  const keyset = after
    ? query.sort === 'email'
      ? sql` AND (email, id) ${sql.raw(query.dir === 'asc' ? '>' : '<')} (${after.value}, ${after.id}::uuid)`
      : sql` AND (created_at, id) ${sql.raw(query.dir === 'asc' ? '>' : '<')} (${after.value}::timestamptz, ${after.id}::uuid)`
    : sql``

  const result = await db.execute<PageRow>(sql`
    SELECT ${contactColumns}, ${sortValue} AS sort_value FROM contacts
    WHERE ${where}${keyset}
    ORDER BY ${sortColumn} ${direction}, id ${direction}
    LIMIT ${query.limit + 1}`)
  return keysetPage<PageRow, ContactView>(result.rows, query, {
    view: toContactView,
    cursorOf: (last) => [query.sort, query.dir, last.sort_value, last.id],
    countTotal: async () => {
      const counted = await db.execute<{ total: number }>(
        sql`SELECT count(*)::int AS total FROM contacts WHERE ${where}`,
      )
      return counted.rows[0]?.total ?? 0
    },
  })
}
