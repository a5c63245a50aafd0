// One file per area; drizzle-kit reads this index to generate migrations.
export * from './analytics.js'
export * from './contacts.js'
export * from './domains.js'
export * from './emails.js'
export * from './events.js'
export * from './foundation.js'
export * from './templates.js'
