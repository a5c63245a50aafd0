// One file per area; drizzle-kit reads this index to generate migrations.

export * from './emails.js'
export * from './foundation.js'
