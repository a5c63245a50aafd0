import { index, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { createdAt, updatedAt } from './columns.js'
import { projects } from './foundation.js'

export const templateType = pgEnum('template_type', ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'])

export const templates = pgTable(
  'templates',
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    subject: text().notNull(),
    body: text().notNull(),
    from: text().notNull(),
    fromName: text(),
    replyTo: text(),
    type: templateType().notNull().default('MARKETING'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index().on(table.projectId, table.createdAt)],
)
