import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Account, bearer, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

type UploadAnswer = { jobId: string; state: string; error: { code: string; errors: unknown[] } }

async function upload(account: Account, csv: string | Buffer, filename = 'contacts.csv') {
  const form = new FormData()
  form.append('file', new Blob([csv], { type: 'text/csv' }), filename)
  const response = await fetch(`${server.url}/contacts/import`, {
    method: 'POST',
    headers: bearer(account.secretKey),
    body: form,
  })
  return { status: response.status, body: (await response.json()) as UploadAnswer }
}

async function poll(account: Account, url: string) {
  return vi.waitFor(
    async () => {
      const response = await server.app.inject({ method: 'GET', url, headers: bearer(account.secretKey) })
      const body = response.json()
      expect(['completed', 'failed']).toContain(body.state)
      return body
    },
    { timeout: 30_000, interval: 100 },
  )
}

async function contactsOf(account: Account) {
  const result = await server.ctx.db.execute<{ email: string; subscribed: boolean; data: Record<string, unknown> }>(
    sql`SELECT email, subscribed, data FROM contacts WHERE project_id = ${account.project.id} ORDER BY email`,
  )
  return result.rows
}

async function subscriptionEventCount(account: Account) {
  const result = await server.ctx.db.execute<{ count: number }>(
    sql`SELECT count(*)::int AS count FROM events WHERE project_id = ${account.project.id} AND name LIKE 'contact.%'`,
  )
  return result.rows[0]?.count
}

describe('CSV import', () => {
  it('imports 10k rows in batches, reporting the bad rows and importing the good ones', async () => {
    const account = await createAccount(server)
    await createContact(server, account, { email: 'row1@example.com', data: { existing: true } })
    const lines = ['Email,subscribed,plan,seats,trial,zip,id']
    for (let i = 0; i < 10_000; i++) {
      const email = i === 10 ? 'not-an-email' : i === 20 ? '' : `row${i}@example.com`
      const subscribed = i === 30 ? 'maybe' : i % 2 ? 'true' : 'false'
      lines.push(`${email},${subscribed},pro,${i},true,01234,reserved-${i}`)
    }
    const { status, body } = await upload(account, lines.join('\n'))
    expect(status).toBe(202)
    expect(body).toEqual({ jobId: expect.any(String), state: 'queued' })
    const job = await poll(account, `/contacts/import/${body.jobId}`)
    expect(job).toMatchObject({
      state: 'completed',
      totalRows: 10_000,
      processedRows: 10_000,
      progress: 100,
      created: 9_996,
      updated: 1,
      failed: 3,
      error: null,
    })
    expect(job.errors).toEqual([
      { row: 12, email: 'not-an-email', message: 'Invalid email address' },
      { row: 22, email: null, message: 'Missing email address' },
      { row: 32, email: 'row30@example.com', message: 'subscribed must be true or false' },
    ])
    const contacts = await contactsOf(account)
    expect(contacts).toHaveLength(9_997)
    expect(contacts.find((contact) => contact.email === 'row1@example.com')).toEqual({
      email: 'row1@example.com',
      subscribed: true,
      data: { existing: true, plan: 'pro', seats: 1, trial: true, zip: '01234' },
    })
    expect(contacts.find((contact) => contact.email === 'row2@example.com')?.subscribed).toBe(false)
  })

  it('rejects a CSV without an email column (422) and one over 5 MB (413), queueing nothing', async () => {
    const account = await createAccount(server)
    const noEmail = await upload(account, 'name,plan\nAda,pro\n')
    expect(noEmail.status).toBe(422)
    expect(noEmail.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'file', code: 'invalid_csv', message: 'The header row has no "email" column' }],
    })
    const big = await upload(account, Buffer.alloc(5 * 1024 * 1024 + 10, 'a'))
    expect(big.status).toBe(413)
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE')
    const empty = await upload(account, '')
    expect(empty.status).toBe(422)
    const notMultipart = await server.app.inject({
      method: 'POST',
      url: '/contacts/import',
      headers: bearer(account.secretKey),
      payload: { file: 'email\n' },
    })
    expect(notMultipart.statusCode).toBe(415)
    const jobs = await server.ctx.db.execute(
      sql`SELECT 1 FROM contact_imports WHERE project_id = ${account.project.id}`,
    )
    expect(jobs.rows).toHaveLength(0)
  })

  it('fails a malformed CSV as a whole, importing nothing', async () => {
    const account = await createAccount(server)
    const { body } = await upload(account, 'email,name\nok@example.com,"unclosed\nother@example.com,x\n')
    const job = await poll(account, `/contacts/import/${body.jobId}`)
    expect(job).toMatchObject({ state: 'failed', error: expect.stringContaining('Malformed CSV') })
    expect(await contactsOf(account)).toEqual([])
  })

  it('reports a job pg-boss gave up retrying as failed', async () => {
    const account = await createAccount(server)
    const queue = await server.ctx.boss.getQueue('contacts-import')
    expect(queue?.deadLetter).toBe('contacts-job-failed')
    const [row] = (
      await server.ctx.db.execute<{ id: string }>(sql`
        INSERT INTO contact_imports (project_id, state, file, file_bytes)
        VALUES (${account.project.id}, 'running', 'email', 5) RETURNING id`)
    ).rows
    await server.ctx.boss.send('contacts-job-failed', { importId: row?.id })
    const job = await poll(account, `/contacts/import/${row?.id}`)
    expect(job).toMatchObject({ state: 'failed', error: expect.stringContaining('failed after several attempts') })
  })

  it("another project's import job is 404", async () => {
    const [owner, other] = [await createAccount(server), await createAccount(server)]
    const { body } = await upload(owner, 'email\na@example.com\n')
    const response = await server.app.inject({
      method: 'GET',
      url: `/contacts/import/${body.jobId}`,
      headers: bearer(other.secretKey),
    })
    expect(response.statusCode).toBe(404)
  })
})

describe('bulk jobs', () => {
  async function bulk(account: Account, action: string, contactIds: string[]) {
    return server.app.inject({
      method: 'POST',
      url: `/contacts/bulk-${action}`,
      headers: bearer(account.secretKey),
      payload: { contactIds },
    })
  }

  it('unsubscribes and resubscribes, emitting events for real flips only, then deletes', async () => {
    const account = await createAccount(server)
    const subscribed = await createContact(server, account)
    const unsubscribed = await createContact(server, account, { subscribed: false })
    const ids = [subscribed.id, unsubscribed.id]

    const off = await bulk(account, 'unsubscribe', ids)
    expect(off.statusCode).toBe(202)
    expect(await poll(account, `/contacts/bulk/${off.json().jobId}`)).toMatchObject({
      action: 'unsubscribe',
      state: 'completed',
      total: 2,
      processed: 2,
      affected: 1,
      progress: 100,
    })
    expect(await subscriptionEventCount(account)).toBe(1)

    const on = await bulk(account, 'subscribe', ids)
    expect(await poll(account, `/contacts/bulk/${on.json().jobId}`)).toMatchObject({ affected: 2 })
    expect((await contactsOf(account)).every((contact) => contact.subscribed)).toBe(true)
    expect(await subscriptionEventCount(account)).toBe(3)

    const stranger = await createAccount(server)
    const foreignJob = await server.app.inject({
      method: 'GET',
      url: `/contacts/bulk/${on.json().jobId}`,
      headers: bearer(stranger.secretKey),
    })
    expect(foreignJob.statusCode).toBe(404)

    const deleted = await bulk(account, 'delete', ids)
    expect(await poll(account, `/contacts/bulk/${deleted.json().jobId}`)).toMatchObject({ affected: 2 })
    expect(await contactsOf(account)).toEqual([])
  })

  it('rejects 1,001 ids (422) and ids of another project (404), changing nothing', async () => {
    const [owner, other] = [await createAccount(server), await createAccount(server)]
    const mine = await createContact(server, other)
    const theirs = await createContact(server, owner)
    const tooMany = await bulk(
      other,
      'delete',
      Array.from({ length: 1001 }, () => crypto.randomUUID()),
    )
    expect(tooMany.statusCode).toBe(422)
    expect(tooMany.json().error.errors[0]).toMatchObject({ field: 'contactIds', code: 'too_big' })
    const foreign = await bulk(other, 'delete', [mine.id, theirs.id])
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json().error).toMatchObject({ code: 'NOT_FOUND', details: { missing: [theirs.id] } })
    expect(await contactsOf(owner)).toHaveLength(1)
    expect(await contactsOf(other)).toHaveLength(1)
    const jobs = await server.ctx.db.execute(
      sql`SELECT 1 FROM contact_bulk_jobs WHERE project_id IN (${owner.project.id}, ${other.project.id})`,
    )
    expect(jobs.rows).toHaveLength(0)
  })
})
