import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject, type ProvidedContext } from 'vitest'

/** Where a clone comes from: what test/global-setup.ts provides (a global setup reads it from its project). */
export type CloneSource = Pick<ProvidedContext, 'adminUrl' | 'templateDatabase'>

export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return url.toString()
}

export async function adminQuery(adminUrl: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return await client.query(text)
  } finally {
    await client.end()
  }
}

/** A fresh, migrated database cloned from the run's template; dropped with the others at the end of the run. */
export async function createTestDatabase(
  run: CloneSource = { adminUrl: inject('adminUrl'), templateDatabase: inject('templateDatabase') },
): Promise<string> {
  const { adminUrl, templateDatabase: template } = run
  const name = `${template}_${randomBytes(4).toString('hex')}`
  await adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`)
  return databaseUrl(adminUrl, name)
}

/**
 * Ends every connection to the database of `url` but the one asking, as an administrator's `pg_terminate_backend`
 * (or a failover) would; only ever on a database the test owns. Returns how many it ended.
 */
export async function terminateEveryBackend(url: string): Promise<number> {
  const result = await adminQuery(
    url,
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  )
  return result.rowCount ?? 0
}
