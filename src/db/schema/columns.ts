import { timestamp } from 'drizzle-orm/pg-core'

// Column builders shared by every area's tables. Not re-exported from the index: they are not schema.
export const createdAt = () => timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow()

export const updatedAt = () =>
  timestamp({ withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date())
