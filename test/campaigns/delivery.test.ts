import { sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually, unusedPort } from '../helpers/emails.js'
import { type Account, callAs, createAccount } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { type CampaignJson, campaignBody, createCampaignOk } from './campaign-fixtures.js'

/** Contacts `<prefix>-<n>@example.org` with `data.name` "Reader <n>", made in one statement. */
async function insertContacts(server: TestServer, projectId: string, count: number, prefix: string, subscribed = true) {
  await server.ctx.db.execute(sql`
    INSERT INTO contacts (project_id, email, subscribed, data)
    SELECT ${projectId}, ${prefix} || '-' || n || '@example.org', ${subscribed},
      jsonb_build_object('name', 'Reader ' || n)
    FROM generate_series(1, ${count}) AS n`)
}

const chromeOnWindows =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'

const personalised = {
  subject: 'Hello {{ name }}',
  // Long enough to carry the open pixel (HTML over 3,200 characters).
  body: `<p>Dear {{ data.name }} ({{ email }})</p><p>${'News of the month. '.repeat(170)}</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>`,
}

/** Sets up an account with a verified sender domain on `env`; returns it with its sender address. */
async function sender(env: ServerWithDns, label: string): Promise<{ account: Account; from: string }> {
  const account = await createAccount(env.server)
  const domain = await addVerifiedDomain(env.server, env.dns, account, `${label}-${process.pid}.mailroom.test`)
  return { account, from: `news@${domain.domain}` }
}

async function campaignOf(server: TestServer, account: Account, id: string): Promise<CampaignJson> {
  return (await callAs(server, account)('GET', `/campaigns/${id}`)).json<{ data: CampaignJson }>().data
}

/** A campaign to `count` new contacts of a new account on `env`, sent now. */
async function sentCampaign(env: ServerWithDns, label: string, count: number) {
  const { server } = env
  const { account, from } = await sender(env, label)
  await insertContacts(server, account.project.id, count, label)
  const campaign = await createCampaignOk(server, account, campaignBody(from, personalised))
  const call = callAs(server, account)
  expect((await call('POST', `/campaigns/${campaign.id}/send`)).statusCode).toBe(200)
  return { server, account, campaign, call }
}

/** Cancels the campaign; fails if the cancel still waits after 5 s (on an email the outbox holds). */
async function cancelPromptly(call: ReturnType<typeof callAs>, campaignId: string) {
  const cancel = call('POST', `/campaigns/${campaignId}/cancel`)
  const first = await Promise.race([cancel, new Promise((resolve) => setTimeout(() => resolve('waiting'), 5_000))])
  expect(first).not.toBe('waiting')
  return cancel
}

describe('campaign delivery', () => {
  let sink: SmtpSink
  let env: ServerWithDns

  beforeAll(async () => {
    sink = await startSmtpSink()
    env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  })
  afterEach(() => sink.reset())
  afterAll(async () => {
    await env.close()
    await sink.close()
  })

  it('sends every subscribed, unsuppressed contact exactly one email rendered for them, then becomes SENT', async () => {
    const { server } = env
    const { account, from } = await sender(env, 'news')
    const projectId = account.project.id
    // 1,500: past the fan-out's first chunk (1,000), so the audience is queued in two chunks and the second
    // continues where the first stopped; more contacts would only repeat the second chunk's path.
    await insertContacts(server, projectId, 1_500, 'reader')
    await insertContacts(server, projectId, 5, 'gone', false)
    await insertContacts(server, projectId, 5, 'bounced')
    await server.ctx.db.execute(sql`
      INSERT INTO suppressions (project_id, email, reason)
      SELECT ${projectId}, 'bounced-' || n || '@example.org', 'bounce' FROM generate_series(1, 5) AS n`)
    const campaign = await createCampaignOk(server, account, campaignBody(from, personalised))

    const response = await callAs(server, account)('POST', `/campaigns/${campaign.id}/send`, {})
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      success: true,
      message: 'Campaign is being sent',
      data: { id: campaign.id, status: 'SENDING' },
    })

    const received = await sink.waitForMessages(1_500, 90_000)
    await vi.waitFor(
      async () => expect((await campaignOf(server, account, campaign.id)).status).toBe('SENT'),
      eventually,
    )
    const recipients = received.map((item) => item.envelope.to[0] ?? '')
    expect(new Set(recipients).size).toBe(1_500)
    expect(recipients.every((to) => /^reader-\d+@example\.org$/.test(to))).toBe(true)
    for (const item of received.slice(0, 50)) {
      const n = /reader-(\d+)@/.exec(item.envelope.to[0] ?? '')?.[1]
      expect(item.parsed.subject).toBe(`Hello Reader ${n}`)
      expect(item.parsed.html).toContain(`Dear Reader ${n} (reader-${n}@example.org)`)
      const head =
        item.raw
          .toString()
          .split('\r\n\r\n')[0]
          ?.replace(/\r\n[ \t]+/g, ' ') ?? ''
      expect(head).toMatch(/^List-Unsubscribe: <http:\/\/localhost:3000\/unsubscribe\/[\w-]+\.[\w-]+>$/m)
      expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m)
    }
    expect(await campaignOf(server, account, campaign.id)).toMatchObject({ totalRecipients: 1_500, sentCount: 1_500 })
    const stats = (await callAs(server, account)('GET', `/campaigns/${campaign.id}/stats`)).json()
    expect(stats.data).toMatchObject({ totalRecipients: 1_500, sentCount: 1_500, bouncedCount: 0 })
    // The sent record keeps the subject as the contact saw it.
    const stored = await server.ctx.db.execute<{ subject: string; n: number }>(sql`
      SELECT subject, count(*)::int AS n FROM emails WHERE campaign_id = ${campaign.id} AND to_email = 'reader-7@example.org'
      GROUP BY subject`)
    expect(stored.rows).toEqual([{ subject: 'Hello Reader 7', n: 1 }])
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(sink.messages).toHaveLength(1_500)

    // A person opening one email shows in the campaign's stats, as the feedback recorded it.
    const pixel = /src="(http[^"]+\/t\/open\/[^"]+)"/.exec(String(received[1]?.parsed.html))?.[1]
    const opened = await server.app.inject({
      method: 'GET',
      url: new URL(pixel ?? 'http://x/none').pathname,
      headers: { 'user-agent': chromeOnWindows },
    })
    expect(opened.statusCode).toBe(200)
    await vi.waitFor(async () => {
      const { data } = (await callAs(server, account)('GET', `/campaigns/${campaign.id}/stats`)).json()
      expect(data).toMatchObject({ openedCount: 1, openRate: 0.07 })
    }, eventually)
    const openedRows = await server.ctx.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM emails WHERE campaign_id = ${campaign.id} AND opened_at IS NOT NULL`,
    )
    expect(openedRows.rows[0]?.n).toBe(1)

    // The unsubscribe link of one message works for that contact alone.
    const unsubscribe = /href="([^"]+\/unsubscribe\/[^"]+)"/.exec(String(received[0]?.parsed.html))?.[1]
    const unsubscribed = await server.app.inject({
      method: 'POST',
      url: new URL(unsubscribe ?? '').pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    })
    expect(unsubscribed.statusCode).toBeLessThan(400)
    const left = await server.ctx.db.execute<{ email: string }>(sql`
      SELECT email FROM contacts WHERE project_id = ${projectId} AND NOT subscribed AND email LIKE 'reader-%'`)
    expect(left.rows.map((item) => item.email)).toEqual([received[0]?.envelope.to[0]])
    await vi.waitFor(
      async () => expect((await campaignOf(server, account, campaign.id)).unsubscribedCount).toBe(1),
      eventually,
    )

    // Another project's key sees none of it.
    const stranger = await createAccount(server)
    for (const url of [`/campaigns/${campaign.id}`, `/campaigns/${campaign.id}/stats`]) {
      expect((await callAs(server, stranger)('GET', url)).statusCode).toBe(404)
    }
    expect((await callAs(server, stranger)('POST', `/campaigns/${campaign.id}/cancel`)).statusCode).toBe(404)
  }, 90_000)
})

describe('cancelling a campaign mid-send', () => {
  let sink: SmtpSink
  let env: ServerWithDns

  beforeAll(async () => {
    sink = await startSmtpSink()
    // 200 campaign emails a second: the cancel lands while most of them are still queued.
    env = await startServerWithDns({ config: { smtpUrl: sink.url, campaignRatePerSecond: 200 } })
  })
  afterAll(async () => {
    await env.close()
    await sink.close()
  })

  it('stops every email not yet handed over; the counts match what arrived; cancelling again is refused', async () => {
    const { server, account, campaign, call } = await sentCampaign(env, 'slow', 3_000)
    await sink.waitForMessages(20, 30_000)

    const cancelled = await call('POST', `/campaigns/${campaign.id}/cancel`)
    expect(cancelled.statusCode).toBe(200)
    expect(cancelled.json()).toMatchObject({
      success: true,
      message: 'Campaign cancelled successfully',
      data: { status: 'CANCELLED' },
    })
    const atCancel = sink.messages.length
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    // At most what the outbox had already taken from the queue goes out after the cancel.
    expect(sink.messages.length - atCancel).toBeLessThanOrEqual(400)
    expect(sink.messages.length).toBeLessThan(3_000)
    await vi.waitFor(async () => {
      const row = await campaignOf(server, account, campaign.id)
      expect(row.sentCount).toBe(sink.messages.length)
    }, eventually)
    const after = await campaignOf(server, account, campaign.id)
    expect(after.status).toBe('CANCELLED')
    // Emails the outbox held at the cancel and stopped before the transport stay counted, as failed.
    expect(after.totalRecipients - after.sentCount).toBeLessThanOrEqual(400)
    // The emails the outbox held at the cancel are recorded as it lets go of them (it never hands them over).
    await vi.waitFor(async () => {
      const queued = await server.ctx.db.execute<{ n: number }>(sql`
        SELECT count(*)::int AS n FROM emails WHERE campaign_id = ${campaign.id} AND status IN ('QUEUED', 'SENDING')`)
      expect(queued.rows[0]?.n).toBe(0)
    }, eventually)

    const again = await call('POST', `/campaigns/${campaign.id}/cancel`)
    expect(again.statusCode).toBe(400)
    expect(again.json().error.message).toBe('Can only cancel scheduled or sending campaigns')
    expect((await call('POST', `/campaigns/${campaign.id}/send`)).statusCode).toBe(400)
  })

  it('does not wait for an email the outbox holds: the cancel ends, then the outbox records that email', async () => {
    const { server, account, campaign, call } = await sentCampaign(env, 'held', 1_000)
    await vi.waitFor(async () => {
      const queued = await server.ctx.db.execute<{ done: boolean }>(
        sql`SELECT queued_at IS NOT NULL AS done FROM campaigns WHERE id = ${campaign.id}`,
      )
      expect(queued.rows[0]?.done).toBe(true)
    }, eventually)

    // A transaction of the outbox holding one queued email (claiming it), which then records it sent: its
    // counters need the campaign's row, which the cancel locks. A cancel waiting for the email would deadlock.
    const outbox = await server.ctx.pool.connect()
    let open = true
    try {
      await outbox.query('BEGIN')
      const held = await outbox.query<{ id: string }>(
        `SELECT id FROM emails WHERE campaign_id = $1 AND status = 'QUEUED' ORDER BY next_attempt_at DESC LIMIT 1
         FOR UPDATE`,
        [campaign.id],
      )
      const heldId = held.rows[0]?.id
      expect(heldId).toBeDefined()
      const cancelled = await cancelPromptly(call, campaign.id)
      expect(cancelled.statusCode).toBe(200)
      expect(cancelled.json().data.status).toBe('CANCELLED')

      await outbox.query(`UPDATE emails SET status = 'SENT', sent_at = now(), attempts = attempts + 1 WHERE id = $1`, [
        heldId,
      ])
      await outbox.query('COMMIT')
      open = false
      const row = await server.ctx.db.execute<{ status: string }>(sql`SELECT status FROM emails WHERE id = ${heldId}`)
      expect(row.rows[0]?.status).toBe('SENT')
    } finally {
      if (open) await outbox.query('ROLLBACK')
      outbox.release()
    }
    // The held email counts as sent, like every other email of the campaign that left.
    await vi.waitFor(async () => {
      const sent = await server.ctx.db.execute<{ n: number }>(sql`
        SELECT count(*)::int AS n FROM emails WHERE campaign_id = ${campaign.id} AND sent_at IS NOT NULL`)
      const after = await campaignOf(server, account, campaign.id)
      expect(after.status).toBe('CANCELLED')
      expect(after.sentCount).toBe(sent.rows[0]?.n)
    }, eventually)
  })
})

describe('cancelling a campaign none of whose mail has left (the relay is down)', () => {
  let env: ServerWithDns

  beforeAll(async () => {
    env = await startServerWithDns({ config: { smtpUrl: `smtp://127.0.0.1:${await unusedPort()}` } })
  })
  afterAll(() => env.close())

  /** A campaign to 20 contacts, sent now; resolves once every email failed its first attempt (retried in ~30 s). */
  async function waitingCampaign(label: string) {
    const sent = await sentCampaign(env, label, 20)
    await vi.waitFor(async () => {
      const tried = await sent.server.ctx.db.execute<{ n: number }>(sql`
        SELECT count(*)::int AS n FROM emails WHERE campaign_id = ${sent.campaign.id} AND status = 'QUEUED'
          AND attempts = 1`)
      expect(tried.rows[0]?.n).toBe(20)
    }, eventually)
    return sent
  }

  it('goes back to DRAFT without its emails, and can be sent again', async () => {
    const { server, campaign, call } = await waitingCampaign('down')
    const cancelled = await call('POST', `/campaigns/${campaign.id}/cancel`)
    expect(cancelled.statusCode).toBe(200)
    expect(cancelled.json().data).toMatchObject({ status: 'DRAFT', totalRecipients: 0, sentCount: 0 })
    const left = await server.ctx.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM emails WHERE campaign_id = ${campaign.id}`,
    )
    expect(left.rows[0]?.n).toBe(0)
    expect((await call('POST', `/campaigns/${campaign.id}/send`)).statusCode).toBe(200)
  })

  it('does not wait for an email the outbox holds, and counts it as possibly handed over: CANCELLED', async () => {
    const { server, campaign, call } = await waitingCampaign('down-held')
    const outbox = await server.ctx.pool.connect()
    try {
      await outbox.query('BEGIN')
      const held = await outbox.query<{ id: string }>(
        `SELECT id FROM emails WHERE campaign_id = $1 AND status = 'QUEUED' LIMIT 1 FOR UPDATE`,
        [campaign.id],
      )
      expect(held.rows).toHaveLength(1)
      expect((await cancelPromptly(call, campaign.id)).json().data).toMatchObject({
        status: 'CANCELLED',
        totalRecipients: 1,
      })
      const left = await server.ctx.db.execute<{ id: string }>(
        sql`SELECT id FROM emails WHERE campaign_id = ${campaign.id}`,
      )
      expect(left.rows).toEqual([{ id: held.rows[0]?.id }])
    } finally {
      await outbox.query('ROLLBACK')
      outbox.release()
    }
  })
})
