import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { publishEvents } from '../../src/events/bus.js'
import { enqueueEmails } from '../../src/modules/delivery/service.js'
import { heldPriorityOffset } from '../../src/modules/delivery/sql.js'
import type { SecurityView } from '../../src/modules/reputation/schemas.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { enqueue, eventually, findEmails, testEmail } from '../helpers/emails.js'
import { waitForDispatch } from '../helpers/events.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { notFoundBody } from '../helpers/scoping.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

// A small minimum volume keeps the sends short. The mail here is transactional (no template), which pauses all of
// the project's sending at the ceiling: set at the warning thresholds (8 % and 0.3 %), so these tests keep the
// numbers of the whole-project pause they had before the streams (test/reputation/streams.test.ts has the split).
const reputation = {
  enabled: true,
  bounceRatePercent: 8,
  complaintRatePercent: 0.3,
  minSent: 20,
  ceilingBounceRatePercent: 8,
  ceilingComplaintRatePercent: 0.3,
}
const domain = 'guard.example.com'
const from = `news@${domain}`

let sink: SmtpSink
let env: ServerWithDns

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url, reputation } })
})
afterAll(async () => {
  await env.close()
  await sink.close()
})
beforeEach(() => sink.reset())

const server = () => env.server

function send(account: Account, to: string[]) {
  return server().app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(account.secretKey),
    payload: { to, subject: 'Weekly news', body: '<p>News</p>', from },
  })
}

async function security(account: Account): Promise<SecurityView> {
  const response = await server().app.inject({
    method: 'GET',
    url: `/projects/${account.project.id}/security`,
    headers: bearer(account.secretKey),
  })
  expect(response.statusCode).toBe(200)
  return response.json<SecurityView>()
}

/** Provider feedback as the feedback module publishes it: one event per recipient contact. */
async function publish(account: Account, name: string, data: Record<string, unknown>, count: number) {
  await server().ctx.db.transaction((tx) =>
    publishEvents(
      tx,
      Array.from({ length: count }, () => ({ projectId: account.project.id, contactId: null, name, data })),
    ),
  )
}

const permanentBounce = { bounceType: 'Permanent', bouncedAt: new Date().toISOString() }
const transientBounce = { bounceType: 'Transient', transientBounce: true }
const complaint = { complainedAt: new Date().toISOString() }

async function sendAndDeliver(account: Account, count: number) {
  const recipients = Array.from({ length: count }, (_, i) => `reader${i}-${account.project.id.slice(0, 8)}@example.net`)
  expect((await send(account, recipients)).statusCode).toBe(200)
  await sink.waitForMessages(count)
  await vi.waitFor(async () => expect((await security(account)).allTime.total).toBe(count), eventually)
}

describe('a project paused by its bounce rate', () => {
  let owner: Account
  let member: Account
  let earlyId: string
  let heldId: string

  beforeAll(async () => {
    owner = await createAccount(server())
    member = await createAccount(server())
    await addVerifiedDomain(server(), env.dns, owner, domain)
    await server().ctx.pool.query("INSERT INTO memberships (project_id, user_id, role) VALUES ($1, $2, 'MEMBER')", [
      owner.project.id,
      member.userId,
    ])
  })

  it('is paused once its 7-day permanent bounce rate reaches 8 % of at least the minimum volume', async () => {
    await sendAndDeliver(owner, 25)
    // Transient bounces never count; one permanent bounce of 25 is 4 %: still active.
    await publish(owner, 'email.bounce', transientBounce, 5)
    await publish(owner, 'email.bounce', permanentBounce, 1)
    await waitForDispatch(server())
    expect(await security(owner)).toMatchObject({ sending: 'ACTIVE', isHealthy: true, suspensions: [] })

    // Queued before the pause, due later (as a retry would be). Enqueued and postponed in one transaction, so
    // the outbox never sees it due: delivered now, it would make the rate 2 of 26, under the limit.
    earlyId = await server().ctx.db.transaction(async (tx) => {
      const [id = ''] = await enqueueEmails(tx, owner.project.id, [
        testEmail({ from: { email: from }, to: { email: 'early@example.net' } }),
      ])
      await tx.execute(sql`UPDATE emails SET next_attempt_at = now() + interval '1 hour' WHERE id = ${id}`)
      return id
    })

    // The second one makes 2 of 25 = 8 %: paused.
    await publish(owner, 'email.bounce', permanentBounce, 1)
    await vi.waitFor(async () => expect((await security(owner)).sending).toBe('PAUSED'), eventually)

    const view = await security(owner)
    const rates = { total: 25, bounces: 2, complaints: 0, bounceRate: 8, complaintRate: 0 }
    const none = { total: 0, bounces: 0, complaints: 0, bounceRate: 0, complaintRate: 0 }
    const pausedReason =
      '7-day transactional bounce rate 8.00% (2 permanent bounces of 25 transactional emails) reached the 8% ceiling'
    // Pausing all sending holds both streams, each with the reason.
    const paused = { sending: 'PAUSED', pausedReason, isHealthy: false }
    expect(view).toEqual({
      projectId: owner.project.id,
      sending: 'PAUSED',
      pausedReason,
      isDisabled: false,
      isHealthy: false,
      twentyFourHour: rates,
      sevenDay: rates,
      allTime: rates,
      streams: {
        marketing: { ...paused, twentyFourHour: none, sevenDay: none, allTime: none },
        transactional: { ...paused, twentyFourHour: rates, sevenDay: rates, allTime: rates },
      },
      thresholds: {
        enabled: true,
        bounceRate: 8,
        complaintRate: 0.3,
        ceilingBounceRate: 8,
        ceilingComplaintRate: 0.3,
        minimumSent: 20,
      },
      suspensions: [
        {
          id: expect.any(String),
          scope: 'PROJECT',
          reason: 'BOUNCE_RATE',
          message: view.pausedReason,
          sent: 25,
          bounces: 2,
          complaints: 0,
          bounceRate: 8,
          complaintRate: 0,
          pausedAt: expect.any(String),
          liftedAt: null,
          liftedBy: null,
        },
      ],
    })
    // The dashboard's endpoint reports the same numbers, to any member.
    const dashboard = await server().app.inject({
      method: 'GET',
      url: `/users/@me/projects/${owner.project.id}/security`,
      headers: { cookie: member.cookie },
    })
    expect(dashboard.statusCode).toBe(200)
    expect(dashboard.json()).toEqual(view)
  })

  it('while paused, /v1/send answers 403 naming the reason and sends nothing', async () => {
    const response = await send(owner, ['late@example.net'])
    expect(response.statusCode).toBe(403)
    expect(response.json()).toEqual({
      success: false,
      error: {
        code: 'PROJECT_SENDING_PAUSED',
        message:
          'Sending is paused for this project: 7-day transactional bounce rate 8.00% (2 permanent bounces of 25 transactional emails) reached the 8% ceiling',
        statusCode: 403,
        requestId: expect.any(String),
        suggestion: expect.any(String),
      },
      timestamp: expect.any(String),
    })
    const { rows } = await server().ctx.pool.query("SELECT 1 FROM emails WHERE to_email = 'late@example.net'")
    expect(rows).toEqual([])
  })

  it('holds emails queued by other paths (campaigns, workflows) without sending or losing them', async () => {
    await server().ctx.pool.query('UPDATE emails SET next_attempt_at = now() WHERE id = $1', [earlyId])
    ;[heldId = ''] = await enqueue(server(), owner.project.id, [
      testEmail({ from: { email: from }, to: { email: 'held@example.net' } }),
    ])
    // Several outbox polls go by; the email stays queued and nothing reaches the SMTP server.
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect(sink.messages).toEqual([])
    const held = await findEmails(server(), [earlyId, heldId])
    // Both wait outside the outbox's claim range (transactional priority 0 plus the hold offset).
    expect(held.map(({ status, attempts, priority }) => ({ status, attempts, priority }))).toEqual([
      { status: 'QUEUED', attempts: 0, priority: heldPriorityOffset },
      { status: 'QUEUED', attempts: 0, priority: heldPriorityOffset },
    ])
  })

  it('a member who is not an owner cannot resume (403); another user gets 404', async () => {
    const stranger = await createAccount(server())
    for (const [account, status] of [
      [member, 403],
      [stranger, 404],
    ] as const) {
      const response = await server().app.inject({
        method: 'POST',
        url: `/users/@me/projects/${owner.project.id}/security/resume`,
        headers: { cookie: account.cookie },
      })
      expect(response.statusCode).toBe(status)
    }
    expect((await security(owner)).sending).toBe('PAUSED')
  })

  it('an owner resumes: the held emails are delivered and sending works again', async () => {
    const response = await server().app.inject({
      method: 'POST',
      url: `/users/@me/projects/${owner.project.id}/security/resume`,
      headers: { cookie: owner.cookie },
    })
    expect(response.statusCode).toBe(200)
    const view = response.json<SecurityView>()
    expect(view).toMatchObject({ sending: 'ACTIVE', pausedReason: null })
    expect(view.suspensions).toEqual([
      expect.objectContaining({ reason: 'BOUNCE_RATE', liftedAt: expect.any(String), liftedBy: owner.userId }),
    ])

    const delivered = await sink.waitForMessages(2)
    expect(delivered.flatMap((message) => message.envelope.to).sort()).toEqual([
      'early@example.net',
      'held@example.net',
    ])
    await vi.waitFor(async () => {
      const emails = await findEmails(server(), [earlyId, heldId])
      expect(emails.map(({ status, priority }) => ({ status, priority }))).toEqual([
        { status: 'SENT', priority: 0 },
        { status: 'SENT', priority: 0 },
      ])
    }, eventually)
    expect((await send(owner, ['again@example.net'])).statusCode).toBe(200)
    await sink.waitForMessages(3)
    // Counted once its email.sent is dispatched: the next test's totals include it.
    await vi.waitFor(async () => expect((await security(owner)).allTime.total).toBe(28), eventually)
  })

  it('the old bounces do not pause it again: only events after the lift count, with the minimum volume', async () => {
    await publish(owner, 'email.bounce', permanentBounce, 3)
    await waitForDispatch(server())
    // 5 permanent bounces of 28 over 7 days, but since the lift: 3 of 3 sent, below the minimum of 20.
    expect(await security(owner)).toMatchObject({
      sending: 'ACTIVE',
      sevenDay: { total: 28, bounces: 5 },
    })

    // New volume after the lift brings it back under watch: 4 of the 23 sent since then is 17 %.
    await publish(owner, 'email.sent', {}, 20)
    await publish(owner, 'email.bounce', permanentBounce, 1)
    await vi.waitFor(async () => expect((await security(owner)).sending).toBe('PAUSED'), eventually)
    const view = await security(owner)
    expect(view.pausedReason).toBe(
      '7-day transactional bounce rate 17.39% (4 permanent bounces of 23 transactional emails) reached the 8% ceiling',
    )
    expect(view.suspensions).toHaveLength(2)
  })
})

describe('thresholds', () => {
  it('below the minimum volume nothing is paused, whatever the rate', async () => {
    const account = await createAccount(server())
    await publish(account, 'email.sent', {}, 19)
    await publish(account, 'email.bounce', permanentBounce, 10)
    await publish(account, 'email.complaint', complaint, 5)
    await waitForDispatch(server())
    expect(await security(account)).toMatchObject({
      sending: 'ACTIVE',
      isHealthy: true,
      sevenDay: { total: 19, bounces: 10, complaints: 5 },
      suspensions: [],
    })
  })

  it('the complaint rate pauses at 0.3 %', async () => {
    const account = await createAccount(server())
    await publish(account, 'email.sent', {}, 500)
    await publish(account, 'email.complaint', complaint, 1)
    await waitForDispatch(server())
    expect(await security(account)).toMatchObject({ sending: 'ACTIVE', sevenDay: { complaintRate: 0.2 } })

    await publish(account, 'email.complaint', complaint, 1)
    await vi.waitFor(async () => expect((await security(account)).sending).toBe('PAUSED'), eventually)
    expect(await security(account)).toMatchObject({
      pausedReason:
        '7-day transactional complaint rate 0.40% (2 complaints of 500 transactional emails) reached the 0.3% ceiling',
      sevenDay: { total: 500, complaints: 2, complaintRate: 0.4 },
      suspensions: [expect.objectContaining({ reason: 'COMPLAINT_RATE', sent: 500, complaints: 2 })],
    })
  })

  it('mail older than 7 days counts toward all time only', async () => {
    const account = await createAccount(server())
    await server().ctx.pool.query(
      `INSERT INTO reputation_counts (project_id, hour, sent, bounces, complaints)
       VALUES ($1, date_trunc('hour', now(), 'UTC') - interval '8 days', 100, 50, 1),
              ($1, date_trunc('hour', now(), 'UTC') - interval '2 days', 40, 1, 0)`,
      [account.project.id],
    )
    const view = await security(account)
    expect(view.twentyFourHour).toEqual({ total: 0, bounces: 0, complaints: 0, bounceRate: 0, complaintRate: 0 })
    expect(view.sevenDay).toEqual({ total: 40, bounces: 1, complaints: 0, bounceRate: 2.5, complaintRate: 0 })
    expect(view.allTime).toMatchObject({ total: 140, bounces: 51, complaints: 1 })
  })
})

describe('who can read the security state', () => {
  it("another project's key or user gets 404, and a session needs X-Project-Id of its own project", async () => {
    const [alice, bob] = [await createAccount(server()), await createAccount(server())]
    const byKey = await server().app.inject({
      method: 'GET',
      url: `/projects/${alice.project.id}/security`,
      headers: bearer(bob.secretKey),
    })
    expect(byKey.statusCode).toBe(404)
    expect(byKey.json()).toEqual(notFoundBody('Project'))

    const byUser = await server().app.inject({
      method: 'GET',
      url: `/users/@me/projects/${alice.project.id}/security`,
      headers: { cookie: bob.cookie },
    })
    expect(byUser.json()).toEqual(notFoundBody('Project'))

    const bySession = await server().app.inject({
      method: 'GET',
      url: `/projects/${alice.project.id}/security`,
      headers: { cookie: alice.cookie, 'x-project-id': alice.project.id },
    })
    expect(bySession.statusCode).toBe(200)
    expect(bySession.json()).toMatchObject({ projectId: alice.project.id, sending: 'ACTIVE' })

    const publicKey = await server().app.inject({
      method: 'GET',
      url: `/projects/${alice.project.id}/security`,
      headers: bearer(alice.publicKey),
    })
    expect(publicKey.statusCode).toBe(401)
  })

  it('a malformed project id is a 422 with the field path', async () => {
    const alice = await createAccount(server())
    const response = await server().app.inject({
      method: 'GET',
      url: '/users/@me/projects/not-a-uuid/security',
      headers: { cookie: alice.cookie },
    })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors).toEqual([expect.objectContaining({ field: 'id' })])
  })
})
