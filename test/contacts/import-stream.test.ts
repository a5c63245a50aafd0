import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

// The import job reads its file in 64 KB slices (src/modules/contacts/csv.ts); rows and characters that
// straddle a slice boundary must come out whole, and a malformed row late in the file must still import nothing.

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

async function importCsv(secretKey: string, csv: string) {
  const form = new FormData()
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv')
  const response = await fetch(`${server.url}/contacts/import`, {
    method: 'POST',
    headers: bearer(secretKey),
    body: form,
  })
  expect(response.status).toBe(202)
  const { jobId } = (await response.json()) as { jobId: string }
  return vi.waitFor(
    async () => {
      const polled = await server.app.inject({
        method: 'GET',
        url: `/contacts/import/${jobId}`,
        headers: bearer(secretKey),
      })
      const body = polled.json()
      expect(['completed', 'failed']).toContain(body.state)
      return body
    },
    { timeout: 30_000, interval: 100 },
  )
}

// Multi-byte names on every row, so some character falls across each 64 KB boundary.
const names = ['Zoë Ørsted', '日本語の名前', 'Łukasz Żółw', 'Émilie Dœuf']
function rows(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `s${i}@example.com,${names[i % names.length]} ${i}`)
}

describe('CSV import read in slices', () => {
  it('keeps every row and every multi-byte character across slice boundaries', async () => {
    const account = await createAccount(server)
    const lines = ['email,name', ...rows(6000)]
    expect(Buffer.byteLength(lines.join('\n'))).toBeGreaterThan(3 * 64 * 1024)
    const job = await importCsv(account.secretKey, lines.join('\n'))
    expect(job).toMatchObject({ state: 'completed', totalRows: 6000, created: 6000, failed: 0 })
    const stored = await server.ctx.db.execute<{ email: string; name: string }>(
      sql`SELECT email, data->>'name' AS name FROM contacts WHERE project_id = ${account.project.id}`,
    )
    const byEmail = new Map(stored.rows.map((row) => [row.email, row.name]))
    expect(byEmail.size).toBe(6000)
    for (let i = 0; i < 6000; i++) expect(byEmail.get(`s${i}@example.com`)).toBe(`${names[i % names.length]} ${i}`)
  })

  it('fails a file malformed after its first slices without importing any row', async () => {
    const account = await createAccount(server)
    const lines = ['email,name', ...rows(6000), 'late@example.com,"unclosed quote']
    const job = await importCsv(account.secretKey, lines.join('\n'))
    expect(job.state).toBe('failed')
    expect(job.error).toMatch(/Malformed CSV/)
    const count = await server.ctx.db.execute<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM contacts WHERE project_id = ${account.project.id}`,
    )
    expect(count.rows[0]?.count).toBe(0)
  })
})
