import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  claimEmails,
  markEmailsFailed,
  markEmailsForRetry,
  markEmailsSent,
  renewLeases,
  requeueExpiredLeases,
} from '../../src/modules/delivery/sql.js'
import { enqueue, eventually, findEmails, testEmail } from '../helpers/emails.js'
import { createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

describe('a worker killed mid-batch', () => {
  let sink: SmtpSink
  const servers = new Set<TestServer>()

  beforeAll(async () => {
    sink = await startSmtpSink({ holdReplies: true })
  })
  afterAll(async () => {
    for (const server of servers) await server.close()
    await sink.close()
  })

  it('loses no email and sends none twice once another worker takes over', async () => {
    // Ten emails fit in one claim: eight reach the sink and wait for its reply, two wait for a free
    // connection; the last two are never claimed by the first worker.
    const delivery = { batchSize: 10, maxInFlight: 10 }
    const first = await startTestServer({ config: { mailTransport: 'smtp', smtpUrl: sink.url }, delivery })
    servers.add(first)
    const account = await createAccount(first)
    const ids = await enqueue(
      first,
      account.project.id,
      Array.from({ length: 12 }, (_, index) => testEmail({ to: { email: `reader${index}@example.org` } })),
    )
    await sink.waitForHeld(8)

    await first.outbox?.kill()
    const statuses = (await findEmails(first, ids)).map((row) => row.status).sort()
    expect(statuses).toEqual([...Array(2).fill('QUEUED'), ...Array(10).fill('SENDING')])
    // The lease would run out on its own after 30 s; expire it instead of waiting.
    await first.ctx.db.execute(sql`UPDATE emails SET lease_expires_at = now() - interval '1 second'`)
    servers.delete(first)
    await first.close()
    sink.release()

    const second = await startTestServer({
      databaseUrl: first.config.databaseUrl,
      config: { mailTransport: 'smtp', smtpUrl: sink.url },
    })
    servers.add(second)
    await sink.waitForMessages(12)
    await vi.waitFor(async () => {
      const rows = await findEmails(second, ids)
      expect(rows.map((row) => row.status)).toEqual(Array(12).fill('SENT'))
    }, eventually)

    const messageIds = sink.messages.map((message) => message.parsed.messageId)
    expect(messageIds).toHaveLength(12)
    expect(new Set(messageIds).size).toBe(12)
    const rows = await findEmails(second, ids)
    expect(new Set(messageIds)).toEqual(new Set(rows.map((row) => `<${row.messageId}>`)))
  })

  it('a claim that lost its lease can neither renew it nor record an outcome over the claim that took the email', async () => {
    const server = await startTestServer({ worker: false })
    servers.add(server)
    const account = await createAccount(server)
    const [id = ''] = await enqueue(server, account.project.id, [testEmail()])
    const [first] = (await claimEmails(server.ctx.db, { urgent: 1, bulk: 0 }, 30)).emails
    expect(first?.attempts).toBe(1)
    // The first claimant stalls past its lease; the email goes to another claim.
    await server.ctx.db.execute(sql`UPDATE emails SET lease_expires_at = now() - interval '1 second'`)
    expect(await requeueExpiredLeases(server.ctx.db, 1_000)).toBe(1)
    const [second] = (await claimEmails(server.ctx.db, { urgent: 1, bulk: 0 }, 30)).emails
    expect(second?.attempts).toBe(2)
    const [claimed] = await findEmails(server, [id])

    expect(await renewLeases(server.ctx.db, [{ id, attempts: 1 }], 600)).toEqual([])
    const [untouched] = await findEmails(server, [id])
    expect(untouched?.leaseExpiresAt).toEqual(claimed?.leaseExpiresAt)
    expect(await renewLeases(server.ctx.db, [{ id, attempts: 2 }], 600)).toEqual([id])
    const [renewed] = await findEmails(server, [id])
    expect(renewed?.leaseExpiresAt?.getTime()).toBeGreaterThan((claimed?.leaseExpiresAt?.getTime() ?? 0) + 500_000)

    // The old claim's late outcomes change nothing either; the current claim's do.
    const sentAt = new Date().toISOString()
    expect(await markEmailsFailed(server.ctx.db, [{ id, attempts: 1, error: 'late' }])).toEqual([])
    await markEmailsForRetry(server.ctx.db, [{ id, attempts: 1, error: 'late', delaySeconds: 60 }])
    expect(await markEmailsSent(server.ctx.db, [{ id, attempts: 1, providerMessageId: 'old', sentAt }])).toEqual([])
    expect((await findEmails(server, [id]))[0]).toMatchObject({ status: 'SENDING', attempts: 2, lastError: null })
    const sent = await markEmailsSent(server.ctx.db, [{ id, attempts: 2, providerMessageId: 'current', sentAt }])
    expect(sent.map((row) => row.providerMessageId)).toEqual(['current'])
  })

  it('keeps renewing the lease of an email whose send is slow, so no other worker takes it', async () => {
    const slowSink = await startSmtpSink({ holdReplies: true })
    const server = await startTestServer({
      config: { mailTransport: 'smtp', smtpUrl: slowSink.url },
      delivery: { leaseSeconds: 3 },
    })
    servers.add(server)
    const account = await createAccount(server)
    const [id = ''] = await enqueue(server, account.project.id, [testEmail()])
    await slowSink.waitForHeld(1)
    const [claimed] = await findEmails(server, [id])

    await vi.waitFor(async () => {
      const [row] = await findEmails(server, [id])
      expect(row?.leaseExpiresAt?.getTime()).toBeGreaterThan(claimed?.leaseExpiresAt?.getTime() ?? 0)
    }, eventually)
    slowSink.release()
    await vi.waitFor(async () => {
      const [row] = await findEmails(server, [id])
      expect([row?.status, row?.attempts]).toEqual(['SENT', 1])
    }, eventually)
    expect(slowSink.messages).toHaveLength(1)
    await slowSink.close()
  })
})
