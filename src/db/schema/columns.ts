import { timestamp } from 'drizzle-orm/pg-core'

/** Column builders every table shares. */
export const createdAt = () => timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow()
export const updatedAt = () =>
  timestamp({ withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date())
