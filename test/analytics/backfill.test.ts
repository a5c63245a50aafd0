import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { emailEvent, publish, waitForDispatch } from '../helpers/events.js'
import { callAs, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

/**
 * The data statements at the end of migration 0008 (after the DDL). Migration 0009 replaced the events'
 * `dispatched_at` with the bus position, so "dispatched" is asked of the position instead.
 */
function backfillStatements(): string[] {
  const migration = readFileSync(new URL('../../src/db/migrations/0008_analytics_rollups.sql', import.meta.url), 'utf8')
  return migration
    .split('--> statement-breakpoint')
    .map((statement) => statement.trim())
    .filter((statement) => /^(--[^\n]*\n)*INSERT INTO/.test(statement))
    .map((statement) =>
      statement.replaceAll(
        'e.dispatched_at IS NOT NULL',
        '(e.tx_id, e.id) <= (SELECT tx_id, event_id FROM event_bus_positions)',
      ),
    )
}

it('the migration backfill counts existing events as the subscriber does', async () => {
  const account = await createAccount(server)
  const contact = await createContact(server, account)
  const campaignId = randomUUID()
  const emailId = randomUUID()
  await publish(server, [
    emailEvent(account.project.id, contact.id, emailId, 'email.sent', {}, campaignId),
    emailEvent(account.project.id, contact.id, emailId, 'email.open', { isFirstOpen: true }, campaignId),
    emailEvent(account.project.id, contact.id, emailId, 'email.open', { isFirstOpen: false }, campaignId),
    { projectId: account.project.id, contactId: contact.id, name: 'signup', data: {} },
  ])
  await waitForDispatch(server, account.project.id)
  const read = async () => {
    const hourly = await server.ctx.db.execute(
      sql`SELECT name, hour, count, unique_count FROM event_counts_hourly ORDER BY name, hour`,
    )
    const campaigns = await server.ctx.db.execute(
      sql`SELECT campaign_id, name, count, unique_count FROM campaign_event_counts ORDER BY name`,
    )
    return { hourly: hourly.rows, campaigns: campaigns.rows }
  }
  const bySubscriber = await read()
  expect(bySubscriber.campaigns).toEqual([
    { campaign_id: campaignId, name: 'email.open', count: '2', unique_count: '1' },
    { campaign_id: campaignId, name: 'email.sent', count: '1', unique_count: '1' },
  ])

  const statements = backfillStatements()
  expect(statements).toHaveLength(2)
  await server.ctx.db.transaction(async (tx) => {
    await tx.execute(sql`DELETE FROM event_counts_hourly`)
    await tx.execute(sql`DELETE FROM campaign_event_counts`)
    for (const statement of statements) await tx.execute(sql.raw(statement))
  })
  expect(await read()).toEqual(bySubscriber)
  expect((await callAs(server, account)('GET', '/analytics/top-events')).json().events).toEqual([
    { name: 'signup', count: 1, previousCount: 0 },
  ])
})
