import { index, integer, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { createdAt } from './columns.js'
import { projects } from './foundation.js'

/** Where an upload's bytes live; kept per row so uploads made before S3 was configured can still be deleted. */
export const uploadStorage = pgEnum('upload_storage', ['local', 's3'])

/** Images uploaded for template bodies (`POST /uploads/image`); the row is the index of what storage holds. */
export const uploads = pgTable(
  'uploads',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** The object key, `[S3_PREFIX/]<projectId>/<timestamp>-<random>.<ext>`, as Plunk forms it. */
    key: text().notNull().unique(),
    storage: uploadStorage().notNull(),
    /** The public URL given at upload: what templates embed, so it is kept as given rather than recomputed. */
    url: text().notNull(),
    /** The name the client gave, for display only: the key never contains it. */
    filename: text().notNull(),
    contentType: text().notNull(),
    /** Bytes stored (after metadata was stripped), which is what the URL serves. */
    size: integer().notNull(),
    width: integer().notNull(),
    height: integer().notNull(),
    createdAt: createdAt(),
  },
  (table) => [index().on(table.projectId, table.createdAt, table.id)],
)
