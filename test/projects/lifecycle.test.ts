import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetKeptTables, resetWipedTables } from '../../src/modules/projects/lifecycle.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { findReferences, ownedIds, projectRowCounts, projectTables } from './project-rows.js'
import { seedProject } from './seed.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

function reset(account: Account, projectId: string, payload?: object) {
  return server.app.inject({
    method: 'POST',
    url: `/users/@me/projects/${projectId}/reset`,
    headers: { cookie: account.cookie },
    ...(payload ? { payload } : {}),
  })
}

function remove(account: Account, projectId: string, payload?: object) {
  return server.app.inject({
    method: 'DELETE',
    url: `/users/@me/projects/${projectId}`,
    headers: { cookie: account.cookie },
    ...(payload ? { payload } : {}),
  })
}

async function jobsNaming(projectId: string): Promise<number> {
  const result = await server.ctx.db.execute<{ count: number }>(
    sql`SELECT count(*)::int AS count FROM pgboss.job WHERE data->>'projectId' = ${projectId}`,
  )
  return result.rows[0]?.count ?? 0
}

describe('project reset and delete: what they keep and remove', () => {
  it('every table with a project_id is either wiped or kept by a reset (a new table must be classified)', async () => {
    const tables = await projectTables(server)
    expect([...tables].sort()).toEqual([...resetWipedTables, ...resetKeptTables].filter((t) => t !== 'projects').sort())
  })

  it('reset keeps keys (they still authenticate), members, domains and caps, and removes everything else', async () => {
    const { owner, admin, domainId } = await seedProject(server, 'Reset me')
    const projectId = owner.project.id
    const before = await projectRowCounts(server, projectId)
    expect(resetWipedTables.filter((table) => !before[table])).toEqual([])
    expect(await jobsNaming(projectId)).toBe(1)
    const wipedIds = await ownedIds(server, projectId, resetWipedTables)

    const response = await reset(owner, projectId, { confirm: 'Reset me' })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ success: true, message: 'Project reset successfully' })

    const after = await projectRowCounts(server, projectId)
    for (const table of resetWipedTables) expect(after[table], table).toBeUndefined()
    expect(after).toMatchObject({ memberships: 2, domains: 1, project_billing: 1 })
    // No child row (steps, attachments, memberships of segments...) nor job payload still names a wiped row.
    expect(await findReferences(server, wipedIds)).toEqual([])
    expect(await jobsNaming(projectId)).toBe(0)

    const contacts = await server.app.inject({ method: 'GET', url: '/contacts', headers: bearer(owner.secretKey) })
    expect(contacts.statusCode).toBe(200)
    expect(contacts.json()).toMatchObject({ data: [], total: 0 })
    const domains = await server.app.inject({
      method: 'GET',
      url: `/domains/project/${projectId}`,
      headers: bearer(owner.secretKey),
    })
    expect(domains.statusCode).toBe(200)
    expect(JSON.stringify(domains.json())).toContain(domainId)
    const adminView = await server.app.inject({
      method: 'GET',
      url: '/users/@me/projects',
      headers: { cookie: admin.cookie },
    })
    expect(adminView.json().map((project: { id: string }) => project.id)).toContain(projectId)
    const track = await server.app.inject({
      method: 'POST',
      url: '/v1/track',
      headers: bearer(owner.publicKey),
      payload: { email: 'after-reset@example.com', event: 'came-back' },
    })
    expect(track.statusCode).toBe(200)
  })

  it('delete leaves no row of the project anywhere: no project_id, no child row, no job', async () => {
    const { owner } = await seedProject(server, 'Delete me')
    const projectId = owner.project.id
    const ids = [projectId, ...(await ownedIds(server, projectId))]
    expect(ids.length).toBeGreaterThan(15)
    expect(await findReferences(server, [projectId])).not.toEqual([])

    const response = await remove(owner, projectId, { confirm: 'Delete me' })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({ success: true, message: 'Project deleted successfully' })

    expect(await projectRowCounts(server, projectId)).toEqual({})
    expect(await findReferences(server, ids)).toEqual([])
    const key = await server.app.inject({ method: 'GET', url: '/contacts', headers: bearer(owner.secretKey) })
    expect(key.statusCode).toBe(401)
  })
})

describe('project delete while the outbox writes', () => {
  it('succeeds when a writer holding one of its emails then waits on the project (PostgreSQL breaks the deadlock)', async () => {
    const { owner } = await seedProject(server, 'Deadlocked')
    const projectId = owner.project.id
    const found = await server.ctx.db.execute<{ id: string }>(
      sql`SELECT id FROM emails WHERE project_id = ${projectId} LIMIT 1`,
    )
    const emailId = found.rows[0]?.id
    if (!emailId) throw new Error('the seed made no email')
    // A writer as the outbox is one: it updates an email, then writes a row that references its project.
    const writer = new pg.Client({ connectionString: server.ctx.config.databaseUrl })
    await writer.connect()
    try {
      await writer.query('BEGIN')
      await writer.query('UPDATE emails SET attempts = attempts WHERE id = $1', [emailId])
      const deleting = remove(owner, projectId, { confirm: 'Deadlocked' })
      // The delete has locked the project and waits for the email's row.
      await expect
        .poll(
          async () => {
            const waiting = await server.ctx.db.execute<{ count: number }>(sql`
              SELECT count(*)::int AS count FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM projects%'`)
            return waiting.rows[0]?.count
          },
          { timeout: 10_000, interval: 20 },
        )
        .toBe(1)
      // Now the writer waits for the project: a cycle, which PostgreSQL breaks by aborting the delete's statement.
      await writer.query('SELECT 1 FROM projects WHERE id = $1 FOR KEY SHARE', [projectId])
      await writer.query('COMMIT')
      const response = await deleting
      expect(response.statusCode, response.body).toBe(200)
      expect(await projectRowCounts(server, projectId)).toEqual({})
    } finally {
      await writer.end()
    }
  })
})

describe('project reset and delete: refusals change nothing', () => {
  it('a non-owner member gets 403 on reset and delete, and nothing changes', async () => {
    const { owner, admin } = await seedProject(server, 'Guarded')
    const projectId = owner.project.id
    const before = await projectRowCounts(server, projectId)
    for (const response of [
      await reset(admin, projectId, { confirm: 'Guarded' }),
      await remove(admin, projectId, { confirm: 'Guarded' }),
    ]) {
      expect(response.statusCode).toBe(403)
      expect(response.json()).toMatchObject({ success: false, error: { code: 'FORBIDDEN', statusCode: 403 } })
    }
    expect(await projectRowCounts(server, projectId)).toEqual(before)
  })

  it("another user's project is 404 on reset and delete, and stays whole", async () => {
    const owner = await createAccount(server, 'Not yours')
    const stranger = await createAccount(server)
    const before = await projectRowCounts(server, owner.project.id)
    for (const response of [
      await reset(stranger, owner.project.id, { confirm: 'Not yours' }),
      await remove(stranger, owner.project.id, { confirm: 'Not yours' }),
    ]) {
      expect(response.statusCode).toBe(404)
      expect(response.json().error.code).toBe('NOT_FOUND')
    }
    expect(await projectRowCounts(server, owner.project.id)).toEqual(before)
  })

  it('reset and delete without the confirmation, or with another name, are refused and change nothing', async () => {
    const owner = await createAccount(server, 'Careful')
    await server.app.inject({
      method: 'POST',
      url: '/contacts',
      headers: bearer(owner.secretKey),
      payload: { email: 'keep@example.com' },
    })
    const before = await projectRowCounts(server, owner.project.id)
    const attempts = [
      [await reset(owner, owner.project.id), 422, 'VALIDATION_ERROR'],
      [await remove(owner, owner.project.id), 422, 'VALIDATION_ERROR'],
      [await reset(owner, owner.project.id, { confirm: 42 }), 422, 'VALIDATION_ERROR'],
      [await reset(owner, owner.project.id, { confirm: 'careful' }), 400, 'BAD_REQUEST'],
      [await remove(owner, owner.project.id, { confirm: 'Careful ' }), 400, 'BAD_REQUEST'],
      [await remove(owner, owner.project.id, { confirm: 'Other project' }), 400, 'BAD_REQUEST'],
    ] as const
    for (const [response, status, code] of attempts) {
      expect(response.statusCode, response.body).toBe(status)
      const body = response.json()
      expect(body).toMatchObject({ success: false, error: { code, statusCode: status, requestId: expect.any(String) } })
      expect(body.error.errors[0].field).toBe('confirm')
    }
    expect(await projectRowCounts(server, owner.project.id)).toEqual(before)
  })

  it('a project id that is not a uuid is a 422', async () => {
    const owner = await createAccount(server)
    const response = await reset(owner, 'nope', { confirm: 'x' })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors[0]).toMatchObject({ field: 'id' })
  })
})
