import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { terminateEveryBackend } from '../helpers/database.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { createAccount } from '../helpers/factories.js'
import { expectStandardRefusals, startSendLoad } from '../helpers/send-load.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

/*
 * An administrator (or a failover) cuts every connection of the database at once. Both processes must live on, and
 * the worker must listen again: its outbox and loops poll once a minute here, so only a wake can deliver an email
 * sent afterwards within the few seconds the test allows.
 */
const pollMs = 60_000
const promptlyMs = 5_000
const terminations = 3

let sink: SmtpSink
let worker: ServerWithDns
let api: TestServer
let databaseUrl: string
let secretKey: string
const from = 'codes@terminated.mailroom.test'

beforeAll(async () => {
  sink = await startSmtpSink()
  worker = await startServerWithDns({
    config: { smtpUrl: sink.url },
    delivery: { pollIntervalMs: pollMs },
    loops: { idleMs: pollMs },
  })
  databaseUrl = worker.server.config.databaseUrl ?? ''
  // An API-only process: its sends reach the worker's outbox by NOTIFY alone.
  api = await startTestServer({
    databaseUrl,
    worker: false,
    config: { mailTransport: 'smtp', smtpUrl: sink.url, dnsServers: [worker.dns.address] },
  })
  const account = await createAccount(api)
  await addVerifiedDomain(api, worker.dns, account, 'terminated.mailroom.test')
  secretKey = account.secretKey
})
afterAll(async () => {
  await api?.close()
  await worker?.close()
  await sink?.close()
})

async function sendOne(to: string): Promise<number> {
  const response = await fetch(`${api.url}/v1/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` },
    body: JSON.stringify({ from, to, subject: 'After the cut', body: '<p>Still here</p>' }),
  })
  return response.status
}

describe('every connection of the database terminated', () => {
  it('the API and worker processes live on, refuse with 503 meanwhile, and a send afterwards is delivered at once', async () => {
    const load = startSendLoad(api.url, secretKey, from, 2)
    for (let round = 0; round < terminations; round++) {
      await load.waitForAccepted(Date.now(), 3)
      expect(await terminateEveryBackend(databaseUrl)).toBeGreaterThan(0)
    }
    await load.waitForAccepted(Date.now(), 3)
    await load.stop()
    const refused = expectStandardRefusals(load).length

    for (const server of [api, worker.server]) {
      await vi.waitFor(async () => expect((await fetch(`${server.url}/health`)).status).toBe(200), {
        timeout: promptlyMs,
      })
    }
    // Past the listener's retry: the NOTIFY of this send, not the wake that follows listening again, is what must
    // reach the worker. The retry pause grows to 2 s while attempts keep failing, beyond waitFor's default 1 s.
    await vi.waitFor(
      async () => {
        const { rows } = await worker.server.ctx.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN mailroom_outbox' AND datname = current_database()",
        )
        expect(rows).toHaveLength(1)
      },
      { timeout: promptlyMs },
    )
    const sentAt = Date.now()
    expect(await sendOne('after-the-cut@example.org')).toBe(200)
    await vi.waitFor(
      () => expect(sink.messages.flatMap((message) => message.envelope.to)).toContain('after-the-cut@example.org'),
      { timeout: promptlyMs, interval: 20 },
    )
    console.info(
      `${terminations} terminations, ${load.outcomes.length - refused} sends accepted and ${refused} refused with 503 meanwhile; delivered ${Date.now() - sentAt} ms after the send that followed`,
    )
  })
})
