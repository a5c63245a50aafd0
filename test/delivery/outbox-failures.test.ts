import { inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { emails } from '../../src/db/schema/index.js'
import { enqueueEmails } from '../../src/modules/delivery/service.js'
import { claimEmails } from '../../src/modules/delivery/sql.js'
import { enqueue, eventually, findEmails, testEmail, unusedPort } from '../helpers/emails.js'
import { createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

/** Makes waiting emails due now instead of after their backoff, and nudges the outbox. */
async function retryNow(server: TestServer, ids: string[]): Promise<void> {
  await server.ctx.db.update(emails).set({ nextAttemptAt: sql`now()` }).where(inArray(emails.id, ids))
  server.outbox?.wake()
}

describe('an unreachable SMTP server', () => {
  let server: TestServer
  let sink: SmtpSink | undefined
  let port: number

  beforeAll(async () => {
    port = await unusedPort()
    server = await startTestServer({ config: { mailTransport: 'smtp', smtpUrl: `smtp://127.0.0.1:${port}` } })
  })
  afterAll(async () => {
    await server.close()
    await sink?.close()
  })

  it('keeps emails queued with growing attempts while the API answers, and delivers them once it is back', async () => {
    const account = await createAccount(server)
    const ids = await enqueue(server, account.project.id, [testEmail(), testEmail(), testEmail()])

    await vi.waitFor(async () => {
      const rows = await findEmails(server, ids)
      expect(rows.map((row) => [row.status, row.attempts])).toEqual(Array(3).fill(['QUEUED', 1]))
    }, eventually)
    const rows = await findEmails(server, ids)
    for (const row of rows) {
      expect(row.lastError).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/)
      // The first retry waits about 30 seconds (±20 %).
      expect(row.nextAttemptAt.getTime() - Date.now()).toBeGreaterThan(20_000)
    }
    expect((await server.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)

    await retryNow(server, ids)
    await vi.waitFor(async () => {
      const again = await findEmails(server, ids)
      expect(again.map((row) => [row.status, row.attempts])).toEqual(Array(3).fill(['QUEUED', 2]))
    }, eventually)

    sink = await startSmtpSink({ port })
    await retryNow(server, ids)
    await sink.waitForMessages(3)
    await vi.waitFor(async () => {
      const sent = await findEmails(server, ids)
      expect(sent.map((row) => [row.status, row.attempts, row.lastError])).toEqual(Array(3).fill(['SENT', 3, null]))
    }, eventually)
  })
})

describe('SMTP refusals', () => {
  let server: TestServer
  let sink: SmtpSink
  let refuseLater = true

  beforeAll(async () => {
    sink = await startSmtpSink({
      failWith: (rcpt) => {
        if (rcpt.startsWith('gone@')) return { code: 550, message: 'No such user here' }
        if (rcpt.startsWith('later@') && refuseLater) return { code: 451, message: 'Greylisted, try again' }
        return undefined
      },
    })
    server = await startTestServer({ config: { mailTransport: 'smtp', smtpUrl: sink.url } })
  })
  afterAll(async () => {
    await server.close()
    await sink.close()
  })

  it('gives up on an email at a 5xx, with the server reply as the reason (a refused recipient is a bounce)', async () => {
    const account = await createAccount(server)
    const [id = ''] = await enqueue(server, account.project.id, [testEmail({ to: { email: 'gone@example.org' } })])

    await vi.waitFor(async () => {
      const [row] = await findEmails(server, [id])
      expect(row?.status).toBe('BOUNCED')
    }, eventually)
    const [row] = await findEmails(server, [id])
    expect(row?.lastError).toMatch(/^550 .*No such user here/)
    expect(row?.failedAt).toBeInstanceOf(Date)
    expect(row?.attempts).toBe(1)
  })

  it('retries an email refused with a 4xx until it is accepted', async () => {
    const account = await createAccount(server)
    const [id = ''] = await enqueue(server, account.project.id, [testEmail({ to: { email: 'later@example.org' } })])

    await vi.waitFor(async () => {
      const [row] = await findEmails(server, [id])
      expect([row?.status, row?.attempts]).toEqual(['QUEUED', 1])
    }, eventually)
    const [waiting] = await findEmails(server, [id])
    expect(waiting?.lastError).toMatch(/^451 .*Greylisted/)

    refuseLater = false
    await retryNow(server, [id])
    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope.to).toEqual(['later@example.org'])
    await vi.waitFor(async () => {
      const [row] = await findEmails(server, [id])
      expect([row?.status, row?.attempts]).toEqual(['SENT', 2])
    }, eventually)
    refuseLater = true
  })

  it('gives up on an email still refused 24 hours after it was accepted', async () => {
    const account = await createAccount(server)
    const [id = ''] = await server.ctx.db.transaction(async (tx) => {
      const ids = await enqueueEmails(tx, account.project.id, [testEmail({ to: { email: 'later@example.org' } })])
      await tx.update(emails).set({ createdAt: sql`now() - interval '25 hours'` }).where(inArray(emails.id, ids))
      return ids
    })

    await vi.waitFor(async () => {
      const [row] = await findEmails(server, [id])
      expect(row?.status).toBe('FAILED')
    }, eventually)
    const [row] = await findEmails(server, [id])
    expect(row?.lastError).toMatch(/^gave up after 1 attempts: 451/)
  })
})

describe('priority', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ worker: false })
  })
  afterAll(() => server.close())

  it('claims transactional mail before an earlier campaign backlog', async () => {
    const account = await createAccount(server)
    const campaign = await enqueue(
      server,
      account.project.id,
      Array.from({ length: 5 }, () => testEmail({ sourceType: 'CAMPAIGN' })),
    )
    const [transactional] = await enqueue(server, account.project.id, [testEmail()])

    const claimed = (await claimEmails(server.ctx.db, { urgent: 3, bulk: 2 }, 60)).emails
    expect(claimed[0]?.id).toBe(transactional)
    expect(claimed.slice(1).every((email) => campaign.includes(email.id))).toBe(true)
    expect(claimed.map((email) => email.status)).toEqual(['SENDING', 'SENDING', 'SENDING'])
  })
})
