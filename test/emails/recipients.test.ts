import { type SQL, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subscriptionUrl } from '../../src/mail/outbound/subscription-links.js'
import { recipientCsvHeader } from '../../src/modules/campaigns/recipients-csv.js'
import { campaignBody, createCampaignOk } from '../campaigns/campaign-fixtures.js'
import { addDomain } from '../helpers/domains.js'
import { badQueryBody } from '../helpers/errors.js'
import { type Account, bearer, createAccount, createContact } from '../helpers/factories.js'
import { notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const domain = 'recipients.example.com'
let server: TestServer
let account: Account

// No worker: the rows below keep the states they are given.
beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
  await addDomain(server, account, domain)
})
afterAll(() => server.close())

async function newCampaign(owner = account): Promise<string> {
  return (await createCampaignOk(server, owner, campaignBody(`news@${domain}`))).id
}

/** Campaign emails as the fan-out and the outbox leave them: `status` and moments per row, set-based. */
async function insertCampaignEmails(
  campaignId: string,
  count: number,
  columns: { status: SQL; sentAt?: SQL; deliveredAt?: SQL; openedAt?: SQL; clickedAt?: SQL; lastError?: SQL },
  prefix = 'r',
): Promise<void> {
  await server.ctx.db.execute(sql`
    INSERT INTO emails (project_id, campaign_id, source_type, priority, from_email, to_email, subject, html, message_id,
      status, sent_at, delivered_at, opened_at, clicked_at, last_error, failed_at)
    SELECT ${account.project.id}, ${campaignId}, 'CAMPAIGN', 10, ${`news@${domain}`},
      ${prefix} || i || '@example.org', 'Spring', '', gen_random_uuid()::text, (${columns.status})::email_status,
      ${columns.sentAt ?? sql`NULL`}, ${columns.deliveredAt ?? sql`NULL`}, ${columns.openedAt ?? sql`NULL`},
      ${columns.clickedAt ?? sql`NULL`}, ${columns.lastError ?? sql`NULL`},
      CASE WHEN (${columns.status}) = 'FAILED' THEN now() END
    FROM generate_series(1, ${count}) AS i`)
}

function get(url: string, key = account.secretKey) {
  return server.app.inject({ method: 'GET', url, headers: bearer(key) })
}

/** Every recipient of a state, walking the cursor a few at a time. */
async function allPages(campaignId: string, state: string, limit = 2) {
  const seen: { email: string; status: string; failureReason: string | null }[] = []
  let cursor = ''
  for (let page = 0; page < 50; page++) {
    const response = await get(`/campaigns/${campaignId}/recipients?state=${state}&limit=${limit}&cursor=${cursor}`)
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json()
    seen.push(...body.data)
    if (!body.hasMore) return seen
    cursor = body.cursor
  }
  throw new Error('the cursor never ended')
}

describe('GET /campaigns/:id/recipients', () => {
  it('lists the recipients in each state, an email in every state it reached, with the reason of a failure', async () => {
    const campaignId = await newCampaign()
    const now = sql`now()`
    await insertCampaignEmails(campaignId, 2, { status: sql`'QUEUED'` }, 'queued')
    await insertCampaignEmails(campaignId, 1, { status: sql`'SENDING'` }, 'sending')
    await insertCampaignEmails(campaignId, 3, { status: sql`'SENT'`, sentAt: now }, 'sent')
    await insertCampaignEmails(campaignId, 1, { status: sql`'DELIVERED'`, sentAt: now, deliveredAt: now }, 'delivered')
    await insertCampaignEmails(
      campaignId,
      1,
      { status: sql`'CLICKED'`, sentAt: now, deliveredAt: now, openedAt: now, clickedAt: now },
      'clicked',
    )
    await insertCampaignEmails(campaignId, 1, { status: sql`'BOUNCED'`, sentAt: now }, 'bounced')
    await server.ctx.db.execute(
      sql`UPDATE emails SET bounced_at = now() WHERE campaign_id = ${campaignId} AND status = 'BOUNCED'`,
    )
    await insertCampaignEmails(
      campaignId,
      1,
      { status: sql`'FAILED'`, lastError: sql`'550 5.1.1 No such user'` },
      'failed',
    )

    const emailsOf = async (state: string) => (await allPages(campaignId, state)).map((row) => row.email).sort()
    expect(await emailsOf('queued')).toEqual(['queued1@example.org', 'queued2@example.org', 'sending1@example.org'])
    expect(await emailsOf('sent')).toEqual([
      'bounced1@example.org',
      'clicked1@example.org',
      'delivered1@example.org',
      'sent1@example.org',
      'sent2@example.org',
      'sent3@example.org',
    ])
    expect(await emailsOf('delivered')).toEqual(['clicked1@example.org', 'delivered1@example.org'])
    expect(await emailsOf('opened')).toEqual(['clicked1@example.org'])
    expect(await emailsOf('clicked')).toEqual(['clicked1@example.org'])
    expect(await emailsOf('bounced')).toEqual(['bounced1@example.org'])
    expect(await emailsOf('complained')).toEqual([])
    expect(await allPages(campaignId, 'failed')).toEqual([
      expect.objectContaining({
        email: 'failed1@example.org',
        status: 'FAILED',
        failureReason: '550 5.1.1 No such user',
      }),
    ])

    const first = (await get(`/campaigns/${campaignId}/recipients?state=sent&limit=4`)).json()
    expect(first).toMatchObject({ total: 6, hasMore: true })
    expect(first.data).toHaveLength(4)
    const second = (await get(`/campaigns/${campaignId}/recipients?state=sent&limit=4&cursor=${first.cursor}`)).json()
    expect(second).toMatchObject({ total: 0, hasMore: false, cursor: '' })
    expect(second.data).toHaveLength(2)
    const all = (await get(`/campaigns/${campaignId}/recipients?limit=100`)).json()
    expect(all.total).toBe(10)
  })

  it('lists who unsubscribed through the campaign’s email, and shows it in that email’s timeline', async () => {
    const campaignId = await newCampaign()
    const contact = await createContact(server, account, { email: 'leaver@example.org' })
    await insertCampaignEmails(campaignId, 2, { status: sql`'SENT'`, sentAt: sql`now()` }, 'stayer')
    await insertCampaignEmails(campaignId, 1, { status: sql`'SENT'`, sentAt: sql`now()` }, 'leaver')
    await server.ctx.db.execute(
      sql`UPDATE emails SET contact_id = ${contact.id}, to_email = 'leaver@example.org' WHERE to_email = 'leaver1@example.org'`,
    )
    const link = subscriptionUrl('', server.config.secret, 'unsubscribe', {
      projectId: account.project.id,
      contactId: contact.id,
      campaignId,
    })
    const unsubscribed = await server.app.inject({
      method: 'POST',
      url: link,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    })
    expect(unsubscribed.statusCode).toBe(200)

    const [leaver, ...others] = await allPages(campaignId, 'unsubscribed')
    expect(others).toEqual([])
    expect(leaver).toMatchObject({ email: 'leaver@example.org', contactId: contact.id })
    const timeline = (await get(`/emails/${(leaver as unknown as { emailId: string }).emailId}`)).json()
    expect(timeline.history.map((entry: { kind: string }) => entry.kind)).toEqual(['accepted', 'sent', 'unsubscribed'])
    expect(timeline.history[2].detail).toEqual({ via: 'link' })
  })

  it('refuses a state it does not know, and a cursor it did not make', async () => {
    const campaignId = await newCampaign()
    const state = await get(`/campaigns/${campaignId}/recipients?state=lost`)
    expect(state.statusCode).toBe(400)
    expect(state.json()).toEqual(badQueryBody('state', 'invalid_enum_value'))
    const cursor = await get(`/campaigns/${campaignId}/recipients?cursor=nonsense`)
    expect(cursor.statusCode).toBe(400)
    expect(cursor.json().error).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid cursor' })
  })
})

describe('GET /campaigns/:id/recipients.csv', () => {
  it('streams 20,000 recipients of a state as CSV: the header, then every row once', async () => {
    const campaignId = await newCampaign()
    await insertCampaignEmails(campaignId, 20_000, { status: sql`'SENT'`, sentAt: sql`now()` }, 'many')
    await insertCampaignEmails(campaignId, 5, { status: sql`'QUEUED'` }, 'waiting')
    await insertCampaignEmails(
      campaignId,
      1,
      { status: sql`'FAILED'`, lastError: sql`'=HYPERLINK("x"), "quoted"'` },
      'f',
    )

    const response = await get(`/campaigns/${campaignId}/recipients.csv?state=sent`)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="campaign-${campaignId}-sent-recipients.csv"`,
    )
    // Streamed: no length known in advance.
    expect(response.headers['content-length']).toBeUndefined()
    expect(response.body.startsWith(recipientCsvHeader)).toBe(true)
    const lines = response.body.slice(recipientCsvHeader.length).split('\r\n')
    expect(lines.pop()).toBe('')
    expect(lines).toHaveLength(20_000)
    const addresses = new Set(lines.map((line) => line.split(',')[2]))
    expect(addresses.size).toBe(20_000)
    expect(addresses.has('many1@example.org') && addresses.has('many20000@example.org')).toBe(true)
    expect(lines.every((line) => /^[0-9a-f-]{36},,many\d+@example\.org,SENT,\d{4}-.+Z,,,,,,,$/.test(line))).toBe(true)
    expect(Buffer.byteLength(response.body)).toBe(
      Buffer.byteLength(recipientCsvHeader) + lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 2, 0),
    )

    const failed = await get(`/campaigns/${campaignId}/recipients.csv?state=failed`)
    const [, row] = failed.body.split('\r\n')
    // Quoted as RFC 4180 says, and never run as a formula by a spreadsheet.
    expect(row?.endsWith(`,FAILED,,,,,,,${row?.split(',')[10]},"'=HYPERLINK(""x""), ""quoted"""`)).toBe(true)
    const everyone = await get(`/campaigns/${campaignId}/recipients.csv`)
    expect(everyone.body.split('\r\n')).toHaveLength(1 + 20_006 + 1)
  })
})

describe('scoping', () => {
  it('another project’s key gets 404 for the campaign, on the list and on the CSV, and no byte of it', async () => {
    const campaignId = await newCampaign()
    await insertCampaignEmails(campaignId, 2, { status: sql`'SENT'`, sentAt: sql`now()` }, 'secret')
    const other = await createAccount(server, 'Other project')
    for (const url of [`/campaigns/${campaignId}/recipients`, `/campaigns/${campaignId}/recipients.csv`]) {
      const response = await get(url, other.secretKey)
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Campaign'))
    }
  })
})
