import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { type Account, callAs, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { campaignBody, createCampaignOk } from './campaign-fixtures.js'

let sink: SmtpSink
let env: ServerWithDns
let server: TestServer
let account: Account
let from: string

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  server = env.server
  account = await createAccount(server)
  const domain = await addVerifiedDomain(server, env.dns, account, `send-${process.pid}.mailroom.test`)
  from = `news@${domain.domain}`
  for (let n = 0; n < 3; n++) await createContact(server, account, { email: uniqueEmail('reader'), subscribed: true })
})
afterAll(async () => {
  await env.close()
  await sink.close()
})

const call = (method: 'GET' | 'POST', url: string, body?: object) => callAs(server, account)(method, url, body)

async function newCampaign(overrides: Record<string, unknown> = {}) {
  return createCampaignOk(server, account, campaignBody(from, overrides))
}

async function statusOf(id: string): Promise<{ status: string; scheduledFor: string | null }> {
  return (await call('GET', `/campaigns/${id}`)).json().data
}

async function emailCount(campaignId: string): Promise<number> {
  const result = await server.ctx.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM emails WHERE campaign_id = ${campaignId}`,
  )
  return result.rows[0]?.n ?? 0
}

describe('POST /campaigns/:id/send', () => {
  it('schedules, reschedules, cancels back to DRAFT, and a scheduled campaign sent without a time goes now', async () => {
    const campaign = await newCampaign()
    const at = new Date(Date.now() + 3_600_000)
    const scheduled = await call('POST', `/campaigns/${campaign.id}/send`, { scheduledFor: at.toISOString() })
    expect(scheduled.statusCode).toBe(200)
    expect(scheduled.json()).toMatchObject({
      success: true,
      message: `Campaign scheduled for ${at.toISOString()}`,
      data: { status: 'SCHEDULED', scheduledFor: at.toISOString(), totalRecipients: 3 },
    })
    // Any time the date parser reads, here an RFC 2822 date, reschedules.
    const later = new Date(Date.now() + 7_200_000)
    later.setMilliseconds(0)
    const rescheduled = await call('POST', `/campaigns/${campaign.id}/send`, { scheduledFor: later.toUTCString() })
    expect(rescheduled.json().data).toMatchObject({ status: 'SCHEDULED', scheduledFor: later.toISOString() })

    const cancelled = await call('POST', `/campaigns/${campaign.id}/cancel`)
    expect(cancelled.json().data).toMatchObject({ status: 'DRAFT', scheduledFor: null })
    expect(await emailCount(campaign.id)).toBe(0)

    await call('POST', `/campaigns/${campaign.id}/send`, { scheduledFor: at.toISOString() })
    const now = await call('POST', `/campaigns/${campaign.id}/send`, { scheduledFor: null })
    expect(now.json()).toMatchObject({
      message: 'Campaign is being sent',
      data: { status: 'SENDING', scheduledFor: null },
    })
    await vi.waitFor(async () => expect((await statusOf(campaign.id)).status).toBe('SENT'), eventually)
    expect(await emailCount(campaign.id)).toBe(3)
  })

  it('sends now for a time less than a minute in the past (clock skew), and refuses to send it again', async () => {
    const campaign = await newCampaign({ subject: 'Skewed clock' })
    const skewed = new Date(Date.now() - 59_000).toISOString()
    const past = await call('POST', `/campaigns/${campaign.id}/send`, { scheduledFor: skewed })
    expect(past.statusCode).toBe(200)
    expect(past.json()).toMatchObject({
      message: 'Campaign is being sent',
      data: { status: 'SENDING', scheduledFor: null },
    })
    await vi.waitFor(async () => expect((await statusOf(campaign.id)).status).toBe('SENT'), eventually)
    expect(sink.messages.filter((message) => message.parsed.subject === 'Skewed clock')).toHaveLength(3)
    const again = await call('POST', `/campaigns/${campaign.id}/send`)
    expect(again.statusCode).toBe(400)
    expect(again.json().error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('SENT') })
    expect(await emailCount(campaign.id)).toBe(3)
    expect((await call('POST', `/campaigns/${campaign.id}/cancel`)).statusCode).toBe(400)
  })

  it('refuses a time more than a minute in the past with 400 naming scheduledFor, sending nothing', async () => {
    const draft = await newCampaign({ subject: 'Stale date' })
    const scheduled = await newCampaign({ subject: 'Stale date' })
    const at = new Date(Date.now() + 3_600_000).toISOString()
    expect((await call('POST', `/campaigns/${scheduled.id}/send`, { scheduledFor: at })).statusCode).toBe(200)
    const stale = new Date(Date.now() - 61_000)
    // Plunk's documentation example, a fixed date now in the past, and the same kinds of time as epoch milliseconds.
    for (const scheduledFor of [stale.toISOString(), '2024-01-01T09:00:00Z', stale.getTime()]) {
      for (const campaign of [draft, scheduled]) {
        const response = await call('POST', `/campaigns/${campaign.id}/send`, { scheduledFor })
        expect(response.statusCode, String(scheduledFor)).toBe(400)
        expect(response.json()).toEqual({
          success: false,
          error: {
            code: 'BAD_REQUEST',
            message: expect.stringMatching(/^scheduledFor .* is in the past/),
            statusCode: 400,
            requestId: expect.any(String),
            errors: [{ field: 'scheduledFor', code: 'too_small', message: expect.any(String) }],
          },
          timestamp: expect.any(String),
        })
      }
    }
    expect(await statusOf(draft.id)).toMatchObject({ status: 'DRAFT', scheduledFor: null })
    expect(await statusOf(scheduled.id)).toMatchObject({ status: 'SCHEDULED', scheduledFor: at })
    for (const campaign of [draft, scheduled]) expect(await emailCount(campaign.id)).toBe(0)
    expect(sink.messages.filter((message) => message.parsed.subject === 'Stale date')).toEqual([])
  })

  it('two concurrent sends of one campaign start one fan-out', async () => {
    const campaign = await newCampaign()
    const answers = await Promise.all([1, 2, 3].map(() => call('POST', `/campaigns/${campaign.id}/send`)))
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400, 400])
    await vi.waitFor(async () => expect((await statusOf(campaign.id)).status).toBe('SENT'), eventually)
    expect(await emailCount(campaign.id)).toBe(3)
  })

  it('refuses bad input and changes nothing', async () => {
    const campaign = await newCampaign()
    for (const scheduledFor of ['next tuesday-ish', 'not a date', { at: 'tomorrow' }, true]) {
      const response = await call('POST', `/campaigns/${campaign.id}/send`, { scheduledFor })
      expect(response.statusCode).toBe(400)
      expect(response.json().error).toMatchObject({
        message: 'Invalid scheduledFor date format',
        errors: [{ field: 'scheduledFor', code: 'invalid_date', message: 'Invalid scheduledFor date format' }],
      })
    }
    const nobody = await newCampaign({
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'email', operator: 'equals', value: 'x@y.z' }] }],
      },
    })
    const empty = await call('POST', `/campaigns/${nobody.id}/send`)
    expect(empty.statusCode).toBe(400)
    expect(empty.json().error.message).toBe('Campaign has no recipients')
    expect((await call('POST', '/campaigns/not-a-uuid/send')).statusCode).toBe(422)
    const stranger = await createAccount(server)
    expect((await callAs(server, stranger)('POST', `/campaigns/${campaign.id}/send`)).statusCode).toBe(404)
    expect((await callAs(server, stranger)('POST', `/campaigns/${campaign.id}/cancel`)).statusCode).toBe(404)
    expect((await call('POST', `/campaigns/${campaign.id}/cancel`)).statusCode).toBe(400)
    for (const id of [campaign.id, nobody.id]) expect((await statusOf(id)).status).toBe('DRAFT')
    expect(await emailCount(campaign.id)).toBe(0)
  })
})
