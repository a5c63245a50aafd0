import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { campaignBody, createCampaignOk } from '../campaigns/campaign-fixtures.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventBusState } from '../helpers/events.js'
import { type Account, callAs, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import { waitOnLoops } from '../helpers/loops.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { executionsWhen, insertWorkflow, track } from '../workflows/engine/fixtures.js'

/*
 * The loops' idle pauses are a minute here: only a wake can start the work within the quarter of it each test
 * allows (a second would do on a quiet machine; one test took over 5 s on one loaded by two other test runs).
 */
const loops = { idleMs: 60_000 }
const withinMs = 15_000

let env: ServerWithDns
let server: TestServer
let account: Account

beforeAll(async () => {
  env = await startServerWithDns({ loops })
  server = env.server
  account = await createAccount(server)
})
afterAll(async () => {
  await env.close()
})

/** The workflow's executions once `done` holds for them; a timeout's error also says what the event bus waited on. */
async function executionsWithin(workflowId: string, done: Parameters<typeof executionsWhen>[2]) {
  try {
    return await executionsWhen(server, workflowId, done, withinMs)
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${await eventBusState(server)}`)
  }
}

const completed = (rows: { status: string }[]) => rows[0]?.status === 'COMPLETED'

/** A workflow on `eventName` whose one step (UPDATE_CONTACT) completes the execution. */
function updatingWorkflow(target: TestServer, eventName: string) {
  return insertWorkflow(target, account.project.id, {
    eventName,
    steps: { mark: { type: 'UPDATE_CONTACT', config: { updates: { marked: true } } } },
    edges: [['trigger', 'mark']],
  })
}

describe('woken loops', () => {
  it('a tracked event runs the workflow it triggers at once: the bus and then the workflow loop are woken', async () => {
    const workflow = await updatingWorkflow(server, 'woken-track')
    await track(server, account, uniqueEmail('woken'), 'woken-track')
    const [done] = await executionsWithin(workflow.id, completed)
    expect(done?.status).toBe('COMPLETED')
  })

  it('POST /campaigns/:id/send queues the campaign at once: the campaigns loop is woken', async () => {
    const domain = await addVerifiedDomain(server, env.dns, account, `wake-${process.pid}.mailroom.test`)
    await createContact(server, account, { email: uniqueEmail('reader'), subscribed: true })
    const campaign = await createCampaignOk(server, account, campaignBody(`news@${domain.domain}`))
    const sent = await callAs(server, account)('POST', `/campaigns/${campaign.id}/send`)
    expect(sent.statusCode).toBe(200)
    const queued = await waitOnLoops(async () => {
      const result = await server.ctx.db.execute<{ queued: boolean }>(
        sql`SELECT queued_at IS NOT NULL AS queued FROM campaigns WHERE id = ${campaign.id}`,
      )
      expect(result.rows[0]?.queued).toBe(true)
      return true
    }, withinMs)
    expect(queued).toBe(true)
  })

  it("an event committed by an API-only process wakes another process's loops through NOTIFY", async () => {
    const databaseUrl = server.config.databaseUrl
    if (!databaseUrl) throw new Error('the test server has no database URL')
    // A second context on the same database without loops: its wakes can only reach the first by NOTIFY.
    const api = await startTestServer({ databaseUrl, worker: false })
    try {
      const workflow = await updatingWorkflow(server, 'woken-elsewhere')
      await track(api, account, uniqueEmail('elsewhere'), 'woken-elsewhere')
      const [done] = await executionsWithin(workflow.id, completed)
      expect(done?.status).toBe('COMPLETED')
    } finally {
      await api.close()
    }
  })

  it('an event committed behind a transaction still open goes out once that ends, not at the next poll', async () => {
    const workflow = await updatingWorkflow(server, 'woken-held')
    // A transaction older than the event's, still open: the bus may not hand out what committed after it began.
    const older = await server.ctx.pool.connect()
    try {
      await older.query('BEGIN')
      await older.query('SELECT pg_current_xact_id()')
      await track(server, account, uniqueEmail('held'), 'woken-held')
      // The wake came and found the event held; nothing has started meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await executionsWhen(server, workflow.id, () => true, withinMs)).toEqual([])
      await older.query('COMMIT')
    } finally {
      older.release()
    }
    const [done] = await executionsWithin(workflow.id, completed)
    expect(done?.status).toBe('COMPLETED')
  })
})
