import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { itRequiresTheSecretKey } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
let account: Account
const campaignId = randomUUID()
const workflowId = randomUUID()
const templateId = randomUUID()

/**
 * 60 emails accepted an hour apart, newest `n1`: every third a campaign's, every fifth a workflow's with a template,
 * `n7` BOUNCED, `n40` FAILED, one recipient written in capitals.
 */
beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
  await server.ctx.db.execute(sql`
    INSERT INTO emails (project_id, campaign_id, workflow_id, template_id, source_type, from_email, to_email, subject,
      html, message_id, status, created_at)
    SELECT ${account.project.id},
      CASE WHEN i % 3 = 0 THEN ${campaignId}::uuid END,
      CASE WHEN i % 5 = 0 AND i % 3 <> 0 THEN ${workflowId}::uuid END,
      CASE WHEN i % 5 = 0 AND i % 3 <> 0 THEN ${templateId}::uuid END,
      (CASE WHEN i % 3 = 0 THEN 'CAMPAIGN' WHEN i % 5 = 0 THEN 'WORKFLOW' ELSE 'TRANSACTIONAL' END)::email_source_type,
      'news@list.example.com', CASE WHEN i = 2 THEN 'Ada@Example.ORG' ELSE 'n' || i || '@example.org' END, 'Hi', '',
      gen_random_uuid()::text,
      (CASE i WHEN 7 THEN 'BOUNCED' WHEN 40 THEN 'FAILED' ELSE 'SENT' END)::email_status,
      now() - make_interval(hours => i)
    FROM generate_series(1, 60) AS i`)
})
afterAll(() => server.close())

function list(query: string, key = account.secretKey) {
  return server.app.inject({ method: 'GET', url: `/emails?${query}`, headers: bearer(key) })
}

/** Every recipient the filter lists, in order, walking the cursor `limit` at a time. */
async function recipients(query: string, limit = 7): Promise<string[]> {
  const seen: string[] = []
  let cursor = ''
  for (let page = 0; page < 100; page++) {
    const response = await list(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json()
    seen.push(...body.data.map((email: { to: { email: string } }) => email.to.email))
    if (!body.hasMore) return seen
    cursor = body.cursor
  }
  throw new Error('the cursor never ended')
}

const names = (numbers: number[]) => numbers.map((n) => (n === 2 ? 'Ada@Example.ORG' : `n${n}@example.org`))
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index)

describe('GET /emails', () => {
  it('lists the last 7 days newest first, page after page, each email once', async () => {
    expect(await recipients('')).toEqual(names(range(1, 60)))
    const first = (await list('limit=10')).json()
    expect(first).toMatchObject({ total: 60, hasMore: true })
    expect(first.data[0]).toMatchObject({
      status: 'SENT',
      sourceType: 'TRANSACTIONAL',
      relayed: false,
      sizeBytes: null,
    })
  })

  it('narrows by recipient (whole address, any case), status, source, campaign, workflow, template and time', async () => {
    expect(await recipients('recipient=ada@example.org')).toEqual(['Ada@Example.ORG'])
    expect(await recipients('status=BOUNCED,FAILED')).toEqual(names([7, 40]))
    const thirds = range(1, 60).filter((n) => n % 3 === 0)
    expect(await recipients(`campaignId=${campaignId}`)).toEqual(names(thirds))
    expect(await recipients('sourceType=CAMPAIGN')).toEqual(names(thirds))
    const fifths = range(1, 60).filter((n) => n % 5 === 0 && n % 3 !== 0)
    expect(await recipients(`workflowId=${workflowId}`)).toEqual(names(fifths))
    expect(await recipients(`templateId=${templateId}&sourceType=WORKFLOW`)).toEqual(names(fifths))
    const end = new Date(Date.now() - 9.5 * 3_600_000).toISOString()
    const start = new Date(Date.now() - 20.5 * 3_600_000).toISOString()
    expect(await recipients(`startDate=${start}&endDate=${end}`)).toEqual(names(range(10, 20)))
    expect(await recipients(`startDate=${start}&endDate=${end}&campaignId=${campaignId}`)).toEqual(names([12, 15, 18]))
  })

  it('refuses a window wider than 31 days, an inverted one, and a cursor it did not make', async () => {
    const wide = await list(`startDate=2026-01-01T00:00:00Z&endDate=2026-03-01T00:00:00Z`)
    expect(wide.statusCode).toBe(400)
    expect(wide.json().error).toMatchObject({
      code: 'BAD_REQUEST',
      message: 'Invalid query parameters',
      errors: [{ field: 'startDate', code: 'custom', message: 'startDate may be at most 31 days before endDate' }],
    })
    const inverted = await list(`startDate=2026-03-01T00:00:00Z&endDate=2026-02-01T00:00:00Z`)
    expect(inverted.statusCode).toBe(400)
    expect(inverted.json().error.errors).toEqual([expect.objectContaining({ field: 'startDate' })])
    const cursor = await list('cursor=abc')
    expect(cursor.json().error).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid cursor' })
    const status = await list('status=LOST')
    expect(status.statusCode).toBe(400)
  })

  it('shows another project none of these emails', async () => {
    const other = await createAccount(server, 'Other project')
    const response = await list('limit=100', other.secretKey)
    expect(response.json()).toEqual({ data: [], cursor: '', hasMore: false, total: 0 })
    const filtered = await list(`campaignId=${campaignId}`, other.secretKey)
    expect(filtered.json().data).toEqual([])
  })
})

describe('scoping', () => {
  const id = randomUUID()
  itRequiresTheSecretKey(
    () => server,
    [
      ['GET', '/emails'],
      ['GET', `/emails/${id}`],
      ['GET', `/campaigns/${id}/recipients`],
      ['GET', `/campaigns/${id}/recipients.csv`],
    ],
  )
})
