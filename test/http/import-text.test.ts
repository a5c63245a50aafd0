import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

/** A CSV upload carries text to the database too: the NUL character is refused in it as in JSON requests. */

let server: TestServer
let account: Account

beforeAll(async () => {
  server = await startTestServer()
  account = await createAccount(server)
})
afterAll(async () => {
  await server.close()
})

async function upload(csv: string) {
  const form = new FormData()
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv')
  const response = await fetch(`${server.url}/contacts/import`, {
    method: 'POST',
    headers: bearer(account.secretKey),
    body: form,
  })
  type Answer = { jobId: string; error: { code: string; errors: unknown[] } }
  return { status: response.status, body: (await response.json()) as Answer }
}

async function finished(jobId: string) {
  return vi.waitFor(
    async () => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/contacts/import/${jobId}`,
        headers: bearer(account.secretKey),
      })
      const body = response.json()
      expect(['completed', 'failed']).toContain(body.state)
      return body
    },
    { timeout: 20_000, interval: 100 },
  )
}

async function storedContacts() {
  const result = await server.ctx.db.execute<{ email: string; data: Record<string, unknown> }>(
    sql`SELECT email, data FROM contacts WHERE project_id = ${account.project.id} ORDER BY email`,
  )
  return result.rows
}

describe('CSV import and unstorable text', () => {
  it('a column name with a NUL character refuses the file with 422, and queues nothing', async () => {
    const response = await upload('email,no\u0000te\nann@example.com,hi\n')
    expect(response.status).toBe(422)
    expect(response.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [
        { field: 'file', code: 'invalid_csv', message: 'Column names must not contain the NUL character (U+0000)' },
      ],
    })
    const jobs = await server.ctx.db.execute(
      sql`SELECT 1 FROM contact_imports WHERE project_id = ${account.project.id}`,
    )
    expect(jobs.rows).toEqual([])
  })

  it('a cell with a NUL character fails its own row only; the rest of the file is imported', async () => {
    const csv = [
      'email,note',
      'ann@example.com,hello',
      'bob@example.com,bad\u0000note',
      'c\u0000d@example.com,hi',
      'dan@example.com,bye',
    ].join('\n')
    const response = await upload(csv)
    expect(response.status).toBe(202)
    const job = await finished(response.body.jobId)
    expect(job).toMatchObject({ state: 'completed', totalRows: 4, created: 2, failed: 2, error: null })
    expect(job.errors).toEqual([
      { row: 3, email: 'bob@example.com', message: 'Column "note" must not contain the NUL character (U+0000)' },
      { row: 4, email: null, message: 'Invalid email address' },
    ])
    expect(await storedContacts()).toEqual([
      { email: 'ann@example.com', data: { note: 'hello' } },
      { email: 'dan@example.com', data: { note: 'bye' } },
    ])
  })
})
