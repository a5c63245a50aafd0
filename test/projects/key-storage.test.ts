import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/client.js'
import { projects } from '../../src/db/schema/index.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server.close())

/** Every table (ours and pg-boss's) whose rows, as text, contain `needle`. */
async function tablesHolding(db: Database, needle: string): Promise<string[]> {
  const tables = await db.execute<{ name: string }>(sql`
    SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`)
  const holding: string[] = []
  for (const { name } of tables.rows) {
    const found = await db.execute(sql`SELECT 1 FROM ${sql.raw(name)} AS t WHERE t::text LIKE ${`%${needle}%`} LIMIT 1`)
    if (found.rows.length > 0) holding.push(name)
  }
  return holding
}

function listProjects(target: TestServer, account: Account) {
  return target.app.inject({ method: 'GET', url: '/users/@me/projects', headers: { cookie: account.cookie } })
}

function listContacts(target: TestServer, key: string) {
  return target.app.inject({ method: 'GET', url: '/contacts', headers: bearer(key) })
}

describe('API key storage', () => {
  it('keeps no API key in plaintext anywhere in the database, and still shows and accepts the keys', async () => {
    const account = await createAccount(server)
    expect((await listContacts(server, account.secretKey)).statusCode).toBe(200)
    for (const key of [account.publicKey, account.secretKey]) {
      expect(await tablesHolding(server.ctx.db, key)).toEqual([])
      // Nor the random part alone, in another encoding of the same text.
      expect(await tablesHolding(server.ctx.db, key.slice(3))).toEqual([])
    }
    const [listed] = (await listProjects(server, account)).json()
    expect(listed).toMatchObject({ id: account.project.id, public: account.publicKey, secret: account.secretKey })
  })

  it('seals the plaintext keys of projects made before 0020 at the next start; they keep working', async () => {
    const account = await createAccount(server)
    // A row as it was before migration 0020: the keys in plaintext, no hash, nothing sealed.
    await server.ctx.db
      .update(projects)
      .set({
        publicKey: account.publicKey,
        secretKey: account.secretKey,
        publicKeyHash: null,
        secretKeyHash: null,
        publicKeySealed: null,
        secretKeySealed: null,
      })
      .where(eq(projects.id, account.project.id))

    const restarted = await startTestServer({ worker: false, databaseUrl: server.config.databaseUrl })
    try {
      const [row] = await restarted.ctx.db.select().from(projects).where(eq(projects.id, account.project.id))
      expect(row).toMatchObject({
        publicKey: null,
        secretKey: null,
        publicKeyHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        secretKeySealed: expect.stringMatching(/^v1:/),
      })
      expect(await tablesHolding(restarted.ctx.db, account.secretKey)).toEqual([])
      expect((await listContacts(restarted, account.secretKey)).statusCode).toBe(200)
      const track = await restarted.app.inject({
        method: 'POST',
        url: '/v1/track',
        headers: bearer(account.publicKey),
        payload: { event: 'sealed', email: 'reader@example.com' },
      })
      expect(track.statusCode).toBe(200)
      const [listed] = (await listProjects(restarted, account)).json()
      expect(listed).toMatchObject({ public: account.publicKey, secret: account.secretKey })
    } finally {
      await restarted.close()
    }
  })

  it('refuses to start with a SECRET other than the one the keys were sealed with', async () => {
    await createAccount(server)
    await expect(
      startTestServer({
        worker: false,
        databaseUrl: server.config.databaseUrl,
        config: { secret: 'another-secret-another-secret-another-secret' },
      }),
    ).rejects.toThrow(/^SECRET is not the one the projects’ API keys were sealed with/)
  })
})
