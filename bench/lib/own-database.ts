import { randomBytes } from 'node:crypto'
import pg from 'pg'

export type OwnDatabase = {
  /** DATABASE_URL naming the run's own database on the server; empty for the embedded PostgreSQL. */
  env: Record<string, string>
  drop(): Promise<void>
}

async function adminQuery(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/**
 * On a shared server (DATABASE_URL) a standalone bench gets a database of its own, dropped at the end, so it
 * neither sees nor touches anyone else's rows; without DATABASE_URL it runs on an embedded PostgreSQL.
 */
export async function openOwnDatabase(): Promise<OwnDatabase> {
  const serverUrl = process.env.DATABASE_URL
  if (!serverUrl) return { env: {}, drop: async () => {} }
  const name = `mailroom_bench_${randomBytes(4).toString('hex')}`
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    env: { DATABASE_URL: url.toString() },
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  }
}
