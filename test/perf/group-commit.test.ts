import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addDomain } from '../helpers/domains.js'
import { type Account, bearer, createAccount, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

// Concurrent requests share one statement/transaction (src/db/batcher.ts); each must still get its own outcome.

let server: TestServer
let first: Account
let second: Account
const domain = 'batch.example.com'

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  first = await createAccount(server)
  second = await createAccount(server, 'Second project')
  await addDomain(server, first, domain)
  await addDomain(server, second, domain)
  // A row PostgreSQL refuses: the only way to make one item of a batch fail after it passed validation.
  await server.ctx.db.execute(sql`
    CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.email LIKE 'poison-%' THEN RAISE EXCEPTION 'poisoned row'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_poison BEFORE INSERT ON contacts FOR EACH ROW EXECUTE FUNCTION refuse_poison();`)
})
afterAll(async () => {
  await server.close()
})

function post(url: string, key: string, payload: object) {
  return server.app.inject({ method: 'POST', url, headers: bearer(key), payload })
}

async function countRows(table: 'events' | 'emails', projectId: string, where = sql`true`) {
  const result = await server.ctx.db.execute<{ count: number }>(
    sql`SELECT count(*)::int AS count FROM ${sql.identifier(table)} WHERE project_id = ${projectId} AND ${where}`,
  )
  return result.rows[0]?.count
}

describe('concurrent /v1/track calls', () => {
  it('each get their own contact and event, across projects and with one contact many times', async () => {
    const same = uniqueEmail('same')
    const calls = [
      ...Array.from({ length: 30 }, (_, i) =>
        post('/v1/track', first.publicKey, { email: `many-${i}-${same}`, event: 'batched', data: { i } }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        post('/v1/track', first.publicKey, { email: same, event: 'repeated', data: { [`k${i}`]: i } }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        post('/v1/track', second.publicKey, { email: `other-${i}-${same}`, event: 'elsewhere' }),
      ),
    ]
    const responses = await Promise.all(calls)
    expect(responses.map((response) => response.statusCode)).toEqual(responses.map(() => 200))
    const events = new Set(responses.map((response) => response.json().data.event))
    expect(events.size).toBe(50)

    const repeated = responses.slice(30, 40).map((response) => response.json().data.contact)
    expect(new Set(repeated).size).toBe(1)
    const contact = await server.app.inject({
      method: 'GET',
      url: `/contacts/${repeated[0]}`,
      headers: bearer(first.secretKey),
    })
    // Every request's data key survived: the same contact's writes never overwrite each other.
    expect(contact.json().data).toEqual(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i])))
    expect(await countRows('events', first.project.id, sql`name = 'repeated'`)).toBe(10)
    expect(await countRows('events', first.project.id, sql`name = 'batched'`)).toBe(30)
    expect(await countRows('events', second.project.id, sql`name = 'elsewhere'`)).toBe(10)
    expect(await countRows('events', second.project.id, sql`name <> 'elsewhere'`)).toBe(0)
  })

  it('a row PostgreSQL refuses fails its own request only, and leaves nothing behind', async () => {
    const emails = Array.from({ length: 20 }, (_, i) => (i === 7 ? `poison-${i}@example.com` : uniqueEmail(`ok${i}`)))
    const responses = await Promise.all(
      emails.map((email) => post('/v1/track', first.publicKey, { email, event: 'poison-test' })),
    )
    expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(19)
    expect(responses[7]?.statusCode).toBe(500)
    expect(await countRows('events', first.project.id, sql`name = 'poison-test'`)).toBe(19)
  })
})

describe('concurrent one-recipient /v1/send calls', () => {
  const send = (key: string, to: string, data: Record<string, unknown> = {}) =>
    post('/v1/send', key, { to, from: `hi@${domain}`, subject: 'Hi {{ data.name }}', body: '<p>x</p>', data })

  it('each get their own contact and outbox email, rendered with their own data, across projects', async () => {
    const same = uniqueEmail('send-same')
    const responses = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => send(first.secretKey, `r${i}-${same}`, { name: `N${i}` })),
      ...Array.from({ length: 5 }, (_, i) => send(first.secretKey, same, { name: 'Same', [`k${i}`]: i })),
      ...Array.from({ length: 5 }, (_, i) => send(second.secretKey, `s${i}-${same}`, { name: `S${i}` })),
    ])
    expect(responses.map((response) => response.statusCode)).toEqual(responses.map(() => 200))
    const ids = responses.map((response) => response.json().data.emails[0].email)
    expect(new Set(ids).size).toBe(30)

    const rows = await server.ctx.db.execute<{ id: string; project_id: string; to_email: string; subject: string }>(
      sql`SELECT id, project_id, to_email, subject FROM emails WHERE id = ANY(${sql.param(ids)}::uuid[])`,
    )
    const byId = new Map(rows.rows.map((row) => [row.id, row]))
    responses.forEach((response, i) => {
      const [accepted] = response.json().data.emails
      const row = byId.get(accepted.email)
      expect(row?.to_email).toBe(accepted.contact.email)
      expect(row?.project_id).toBe(i < 25 ? first.project.id : second.project.id)
      expect(row?.subject).toBe(i < 20 ? `Hi N${i}` : i < 25 ? 'Hi Same' : `Hi S${i - 25}`)
    })
    const contacts = new Set(responses.slice(20, 25).map((response) => response.json().data.emails[0].contact.id))
    expect(contacts.size).toBe(1)
  })

  it('a row PostgreSQL refuses fails its own request only', async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        send(first.secretKey, i === 3 ? `poison-send-${i}@example.com` : uniqueEmail(`send-ok${i}`)),
      ),
    )
    expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(11)
    expect(responses[3]?.statusCode).toBe(500)
    expect(await countRows('emails', first.project.id, sql`to_email LIKE 'poison-%'`)).toBe(0)
  })
})
