import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { wakeOutbox } from '../../src/modules/delivery/service.js'
import { outboxChannel } from '../../src/modules/delivery/sql.js'
import { enqueue, findEmails, testEmail } from '../helpers/emails.js'
import { createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

/** Collects the outbox NOTIFYs any process sends on the server's database. */
async function listenForWakes(server: TestServer) {
  const client = new pg.Client({ connectionString: server.ctx.config.databaseUrl })
  await client.connect()
  const received: number[] = []
  client.on('notification', (message) => {
    if (message.channel === outboxChannel) received.push(Date.now())
  })
  await client.query(`LISTEN ${outboxChannel}`)
  return { received, close: () => client.end() }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300))

describe('waking the outbox of the process that accepted the mail', () => {
  let server: TestServer
  let sink: SmtpSink

  beforeAll(async () => {
    sink = await startSmtpSink()
    server = await startTestServer({
      config: { mailTransport: 'smtp', smtpUrl: sink.url },
      // A sole worker with a poll a minute long: only a direct wake can deliver within the test's time.
      delivery: { soleWorker: true, pollIntervalMs: 60_000 },
    })
  })
  afterEach(() => sink.reset())
  afterAll(async () => {
    await server.close()
    await sink.close()
  })

  it('wakes only the claim loop of the kind of mail that was queued', async () => {
    const account = await createAccount(server)
    // Queued as campaign mail, but the helper's wake is a transactional one: the campaign loop sleeps on.
    const [id = ''] = await enqueue(server, account.project.id, [
      testEmail({ sourceType: 'CAMPAIGN', to: { email: 'campaign@example.org' } }),
    ])
    await settle()
    expect((await findEmails(server, [id]))[0]?.status).toBe('QUEUED')

    wakeOutbox(server.ctx.pool, 'bulk')
    await sink.waitForMessages(1, 5_000)
    expect(sink.messages.map((message) => message.envelope.to)).toEqual([['campaign@example.org']])
  })

  it('wakes it directly, and sends no NOTIFY when it is the database’s sole worker', async () => {
    const account = await createAccount(server)
    const wakes = await listenForWakes(server)
    try {
      await enqueue(server, account.project.id, [testEmail({ to: { email: 'direct@example.org' } })])
      await sink.waitForMessages(1, 5_000)
      await settle()
      expect(sink.messages.map((message) => message.envelope.to)).toEqual([['direct@example.org']])
      expect(wakes.received).toEqual([])

      // Once it has stopped, other processes' workers are woken through PostgreSQL again.
      await server.outbox?.stop()
      await enqueue(server, account.project.id, [testEmail()])
      await settle()
      expect(wakes.received).toHaveLength(1)
    } finally {
      await wakes.close()
    }
  })
})
