import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.js'
import { bytea } from './emails.js'
import { projects } from './foundation.js'

/**
 * The links of tracked mail, one row per distinct link of a project, named in click URLs by `id` (12 bytes of
 * SHA-256 over the project id and the link, so the compose threads know it without asking; see
 * docs/decisions/0004). Written before an email leaves, read by the click redirect: one primary-key lookup.
 */
export const trackedLinks = pgTable(
  'tracked_links',
  {
    id: bytea().primaryKey(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** As written in the email, character references decoded: what `email.click` reports. */
    url: text().notNull(),
    createdAt: createdAt(),
  },
  // For deleting a project's links with it.
  (table) => [index('tracked_links_project_index').on(table.projectId)],
)
