import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { campaignSentTrigger } from '../../src/modules/campaigns/completion.js'
import { fanOutChunk } from '../../src/modules/campaigns/fan-out.js'
import { claimEmails, markEmailsFailed, markEmailsSent } from '../../src/modules/delivery/sql.js'
import { addDomain } from '../helpers/domains.js'
import { type Account, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { campaignBody, createCampaignOk, storedCampaign } from './campaign-fixtures.js'

// No worker: the test moves the campaign itself, one step at a time, through the functions the worker calls.
let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

/** A SENDING campaign, not yet fanned out, to `count` new contacts of a new account. */
async function sendingCampaign(count: number): Promise<{ account: Account; id: string }> {
  const account = await createAccount(server)
  await server.ctx.db.execute(sql`
    INSERT INTO contacts (project_id, email, subscribed)
    SELECT ${account.project.id}, 'reader-' || n || '@example.org', true FROM generate_series(1, ${count}) AS n`)
  const domain = await addDomain(server, account, `completion-${randomBytes(4).toString('hex')}.mailroom.test`)
  const campaign = await createCampaignOk(server, account, campaignBody(`news@${domain.domain}`))
  // As `sendCampaign` starts it: the audience frozen now, no recipient counted yet (a draft holds an estimate).
  await server.ctx.db.execute(sql`
    UPDATE campaigns SET status = 'SENDING', sent_at = now(), total_recipients = 0 WHERE id = ${campaign.id}`)
  return { account, id: campaign.id }
}

/** Claims the campaign's queued emails as the outbox does, however far ahead the fan-out spaced them. */
async function claimAll(campaignId: string) {
  await server.ctx.db.execute(sql`UPDATE emails SET next_attempt_at = now() WHERE campaign_id = ${campaignId}`)
  return (await claimEmails(server.ctx.db, { urgent: 0, bulk: 2_000 }, 60)).emails
}

const sentAt = () => new Date().toISOString()
const statusOf = async (id: string) => (await storedCampaign(server, id))?.status

describe(`campaign completion (${campaignSentTrigger})`, () => {
  it('a campaign becomes SENT when its last email is recorded, and not before', async () => {
    const { id } = await sendingCampaign(3)
    expect(await fanOutChunk(server.ctx, id)).toBe(false)
    const [first, second, last] = await claimAll(id)
    if (!first || !second || !last) throw new Error('the fan-out queued fewer than 3 emails')

    await markEmailsSent(
      server.ctx.db,
      [first, second].map((email) => ({ ...email, providerMessageId: 'x', sentAt: sentAt() })),
    )
    expect(await statusOf(id)).toBe('SENDING')
    // A failed email is as final as a sent one.
    expect(await markEmailsFailed(server.ctx.db, [{ ...last, error: 'refused' }])).toEqual([last.id])
    expect(await storedCampaign(server, id)).toMatchObject({
      status: 'SENT',
      totalRecipients: 3,
      sentCount: 2,
      failedCount: 1,
    })
  })

  it('a campaign whose emails all went out before its audience was fully queued becomes SENT when the fan-out finds no more', async () => {
    // Exactly the first chunk: it is full, so the fan-out cannot know the audience is exhausted until it looks again.
    const { id } = await sendingCampaign(1_000)
    expect(await fanOutChunk(server.ctx, id)).toBe(true)
    const claimed = await claimAll(id)
    expect(claimed).toHaveLength(1_000)
    await markEmailsSent(
      server.ctx.db,
      claimed.map((email) => ({ ...email, providerMessageId: 'x', sentAt: sentAt() })),
    )
    expect(await statusOf(id)).toBe('SENDING')

    expect(await fanOutChunk(server.ctx, id)).toBe(false)
    expect(await storedCampaign(server, id)).toMatchObject({ status: 'SENT', totalRecipients: 1_000, sentCount: 1_000 })
  })

  it('two workers recording the last emails at once make the campaign SENT', async () => {
    const { id } = await sendingCampaign(2)
    expect(await fanOutChunk(server.ctx, id)).toBe(false)
    const [one, two] = await claimAll(id)
    if (!one || !two) throw new Error('the fan-out queued fewer than 2 emails')
    const first = new pg.Client({ connectionString: server.config.databaseUrl })
    const second = new pg.Client({ connectionString: server.config.databaseUrl })
    await Promise.all([first.connect(), second.connect()])
    const secondPid = (await second.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0
    const record = `UPDATE emails SET status = 'SENT', sent_at = now() WHERE id = $1`
    try {
      await first.query('BEGIN')
      await first.query(record, [one.id])
      await second.query('BEGIN')
      // Each sees only its own email sent until the other commits; the counters' row lock makes the second wait.
      const recording = second.query(record, [two.id])
      await vi.waitFor(async () => {
        const waiting = await server.ctx.db.execute<{ count: number }>(sql`
          SELECT count(*)::int AS count FROM pg_locks WHERE NOT granted AND pid = ${secondPid}`)
        expect(waiting.rows[0]?.count).toBeGreaterThan(0)
      })
      await first.query('COMMIT')
      expect(await statusOf(id)).toBe('SENDING')
      await recording
      await second.query('COMMIT')
    } finally {
      await Promise.all([first.end(), second.end()])
    }
    expect(await storedCampaign(server, id)).toMatchObject({ status: 'SENT', totalRecipients: 2, sentCount: 2 })
  })
})
