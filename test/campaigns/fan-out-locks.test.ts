import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { fanOutChunk } from '../../src/modules/campaigns/fan-out.js'
import { addDomain } from '../helpers/domains.js'
import { bearer, createAccount, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { campaignBody, createCampaignOk } from './campaign-fixtures.js'

// No worker: the test runs the fan-out itself, to hold one of its chunks open.
let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

describe('a campaign being queued', () => {
  it("does not hold up its project's /v1/send while a chunk is being written", async () => {
    const account = await createAccount(server)
    await server.ctx.db.execute(sql`
      INSERT INTO contacts (project_id, email, subscribed)
      SELECT ${account.project.id}, 'reader-' || n || '@example.org', true FROM generate_series(1, 20) AS n`)
    const domain = await addDomain(server, account, `locks-${randomBytes(4).toString('hex')}.mailroom.test`)
    const campaign = await createCampaignOk(server, account, campaignBody(`news@${domain.domain}`))
    await server.ctx.db.execute(sql`
      UPDATE campaigns SET status = 'SENDING', sent_at = now(), total_recipients = 0 WHERE id = ${campaign.id}`)

    // Another transaction holds one of the audience's contacts, so the chunk's insert (whose foreign key shares
    // that row) waits in the middle of the chunk, as a slow chunk of a large audience takes its time.
    const holder = new pg.Client({ connectionString: server.config.databaseUrl })
    await holder.connect()
    try {
      await holder.query('BEGIN')
      await holder.query(`SELECT 1 FROM contacts WHERE project_id = $1 AND email = 'reader-1@example.org' FOR UPDATE`, [
        account.project.id,
      ])
      const chunk = fanOutChunk(server.ctx, campaign.id)
      await vi.waitFor(async () => {
        const waiting = await server.ctx.db.execute(sql`
          SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO emails%'`)
        expect(waiting.rows).toHaveLength(1)
      })

      const sent = server.app.inject({
        method: 'POST',
        url: '/v1/send',
        headers: bearer(account.secretKey),
        payload: {
          to: uniqueEmail('reset'),
          from: `security@${domain.domain}`,
          subject: 'Your password reset',
          body: '<p>Reset it here.</p>',
        },
      })
      const outcome = await Promise.race([
        sent.then((response) => response.statusCode),
        new Promise((resolve) => setTimeout(() => resolve('still waiting after 3 s'), 3_000)),
      ])
      await holder.query('COMMIT')
      expect(outcome).toBe(200)
      expect(await chunk).toBe(false)
      expect((await sent).statusCode).toBe(200)
    } finally {
      await holder.query('ROLLBACK').catch(() => {})
      await holder.end()
    }
  })
})
