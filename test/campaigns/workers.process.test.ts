import { eq, sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { campaigns } from '../../src/db/schema/index.js'
import { type CliProcess, cliSandbox } from '../helpers/cli-process.js'
import { createTestDatabase } from '../helpers/database.js'
import { addDomain } from '../helpers/domains.js'
import { callAs, createAccount } from '../helpers/factories.js'
import { startTestServer } from '../helpers/server.js'
import { startSmtpSink } from '../helpers/smtp-sink.js'

const { start, dataDir } = cliSandbox()
/**
 * Twice what one worker claims of a campaign at a time (300 bulk emails in flight): the first worker to claim
 * cannot hold them all, so both send, and a doubled or lost email shows in the counts as it would among 2,000.
 */
const recipients = 600

describe('a scheduled campaign with several worker processes', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('survives a worker restart, fires on time, once, and two workers send each email once', async () => {
    const sink = await startSmtpSink()
    cleanups.push(() => sink.close())
    const databaseUrl = await createTestDatabase()
    // An API-only process takes the send; CLI worker processes do the rest.
    const api = await startTestServer({ databaseUrl, worker: false })
    cleanups.push(() => api.close())
    const account = await createAccount(api)
    // The API process runs in capture mode: a registered sender domain is enough to send.
    await addDomain(api, account, 'workers.mailroom.test')
    await api.ctx.db.execute(sql`
      INSERT INTO contacts (project_id, email, subscribed, data)
      SELECT ${account.project.id}, 'member-' || n || '@example.org', true, jsonb_build_object('n', n)
      FROM generate_series(1, ${recipients}) AS n`)
    const [campaign] = await api.ctx.db
      .insert(campaigns)
      .values({
        projectId: account.project.id,
        name: 'Scheduled',
        subject: 'Number {{ data.n }}',
        body: '<p>You are number {{ data.n }}</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
        from: 'news@workers.mailroom.test',
        audienceType: 'ALL',
      })
      .returning()
    if (!campaign) throw new Error('no campaign')
    const env = {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir('mailroom-campaign-workers-'),
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: sink.url,
      CAMPAIGN_RATE_PER_SECOND: '100000',
      // The API's secret: the workers open the domain's DKIM key and sign the links with it.
      SECRET: api.ctx.config.secret,
      LOG_LEVEL: 'info',
    }

    // A worker that stops (a restart, a deploy) before the time comes leaves the schedule to the next ones.
    const first = start('worker', env)
    await first.waitForOutput('worker started', 60_000)
    const scheduledFor = new Date(Date.now() + 5_000)
    const sent = await callAs(api, account)('POST', `/campaigns/${campaign.id}/send`, {
      scheduledFor: scheduledFor.toISOString(),
    })
    expect(sent.json().message).toBe(`Campaign scheduled for ${scheduledFor.toISOString()}`)
    expect(await first.stop('SIGTERM')).toBe(0)
    expect(sink.messages).toHaveLength(0)

    const workers: CliProcess[] = [start('worker', env), start('worker', env)]
    await Promise.all(workers.map((worker) => worker.waitForOutput('worker started', 60_000)))
    await sink.waitForMessages(recipients, 90_000)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    for (const worker of workers) expect(await worker.stop('SIGTERM')).toBe(0)

    expect(sink.messages).toHaveLength(recipients)
    const byRecipient = new Map(sink.messages.map((item) => [item.envelope.to[0], item]))
    expect(byRecipient.size).toBe(recipients)
    expect(Math.min(...sink.messages.map((item) => item.receivedAt))).toBeGreaterThanOrEqual(scheduledFor.getTime())
    expect(byRecipient.get('member-17@example.org')?.parsed.subject).toBe('Number 17')
    const [row] = await api.ctx.db.select().from(campaigns).where(eq(campaigns.id, campaign.id))
    expect(row).toMatchObject({ status: 'SENT', totalRecipients: recipients, sentCount: recipients })
    expect(row?.scheduledFor?.toISOString()).toBe(scheduledFor.toISOString())
  }, 180_000)
})
