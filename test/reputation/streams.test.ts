import { sql } from 'drizzle-orm'
import { createTransport } from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { wakeCampaignsLoop } from '../../src/modules/campaigns/wake.js'
import { wakeOutbox } from '../../src/modules/delivery/service.js'
import { heldPriorityOffset, holdQueuedEmails, releaseHeldEmails } from '../../src/modules/delivery/sql.js'
import { createSubmissionHandler } from '../../src/modules/relay/handler.js'
import type { SecurityView } from '../../src/modules/reputation/schemas.js'
import { addMembers, campaignBody, createCampaignOk, insertSegment } from '../campaigns/campaign-fixtures.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { enqueue, eventually, testEmail } from '../helpers/emails.js'
import { type Account, bearer, callAs, createAccount, createContact } from '../helpers/factories.js'
import { notFoundBody } from '../helpers/scoping.js'
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { startRelay } from '../relay/harness.js'
import { refusalOf } from '../relay/helpers.js'
import { executionsWhen, insertTemplate, insertWorkflow, settle, stepsOf, track } from '../workflows/engine/fixtures.js'

// The defaults but for a small minimum volume: marketing pauses at 8 % / 0.3 %, all sending at 10 % / 0.5 %.
const reputation = {
  enabled: true,
  bounceRatePercent: 8,
  complaintRatePercent: 0.3,
  minSent: 20,
  ceilingBounceRatePercent: 10,
  ceilingComplaintRatePercent: 0.5,
}

let sink: SmtpSink
let env: ServerWithDns

beforeAll(async () => {
  // A receiving server that does not know the `bad-` mailboxes: a permanent bounce at RCPT TO, as in real life.
  sink = await startSmtpSink({
    failWith: (rcpt) => (rcpt.startsWith('bad-') ? { code: 550, message: '5.1.1 No such user here' } : undefined),
  })
  env = await startServerWithDns({ config: { smtpUrl: sink.url, reputation } })
})
afterAll(async () => {
  await env.close()
  await sink.close()
})

const server = () => env.server

async function sender(label: string): Promise<{ account: Account; from: string }> {
  const account = await createAccount(server())
  const domain = await addVerifiedDomain(server(), env.dns, account, `${label}-${process.pid}.mailroom.test`)
  return { account, from: `news@${domain.domain}` }
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

function send(account: Account, payload: Record<string, unknown>) {
  return server().app.inject({ method: 'POST', url: '/v1/send', headers: bearer(account.secretKey), payload })
}

/** Contacts `<prefix>-<n>@example.org`, in one statement; returns their ids in order. */
async function insertContacts(projectId: string, prefix: string, count: number): Promise<string[]> {
  const result = await server().ctx.db.execute<{ id: string }>(sql`
    INSERT INTO contacts (project_id, email, subscribed)
    SELECT ${projectId}, ${prefix} || '-' || n || '@example.org', true FROM generate_series(1, ${count}) AS n
    RETURNING id`)
  return result.rows.map((row) => row.id)
}

/** A campaign to a segment of exactly these contacts. */
async function segmentCampaign(account: Account, from: string, name: string, contactIds: string[]) {
  const segmentId = await insertSegment(server(), account.project.id, { name })
  await addMembers(server(), segmentId, contactIds)
  return createCampaignOk(server(), account, campaignBody(from, { name, audienceType: 'SEGMENT', segmentId }))
}

/** Waits until the sink got every one of these recipients (in any order, among other mail). */
async function arrived(...recipients: string[]): Promise<ReceivedMessage[]> {
  let found: ReceivedMessage[] = []
  await vi.waitFor(() => {
    found = recipients.map((to) => {
      const message = sink.messages.find((m) => m.envelope.to.includes(to))
      if (!message) throw new Error(`${to} has not arrived`)
      return message
    })
  }, eventually)
  return found
}

const receivedBy = (to: string) => sink.messages.filter((m) => m.envelope.to.includes(to))

async function emailRows(projectId: string, where: ReturnType<typeof sql>) {
  const result = await server().ctx.db.execute<{ to_email: string; status: string; attempts: number; held: boolean }>(
    sql`SELECT to_email, status, attempts, priority >= ${heldPriorityOffset} AS held FROM emails
        WHERE project_id = ${projectId} AND ${where} ORDER BY to_email`,
  )
  return result.rows
}

const marketingPaused =
  /^7-day marketing bounce rate \d+\.\d\d% \(\d+ permanent bounces of \d+ marketing emails\) reached the 8% limit$/

describe('a project with 9 % hard bounces on its marketing mail', () => {
  let owner: Account
  let from: string
  let other: Account
  let otherFrom: string
  let laterCampaignId: string
  let marketingWorkflowId: string
  let reader: string

  beforeAll(async () => {
    ;({ account: owner, from } = await sender('streams'))
    ;({ account: other, from: otherFrom } = await sender('bystander'))
  })

  it('pauses its marketing stream, and only that: the API reports the rates of each stream', async () => {
    // Transactional mail first: 30 password resets, all delivered.
    const resets = Array.from({ length: 30 }, (_, i) => `reset-${i}@example.net`)
    expect(
      (await send(owner, { to: resets, subject: 'Reset your password', body: '<p>Reset</p>', from })).statusCode,
    ).toBe(200)
    await arrived(...resets)
    // Scheduled for later before anything went wrong; it comes due while the stream is paused (below).
    const later = await segmentCampaign(owner, from, 'Later', await insertContacts(owner.project.id, 'later', 3))
    laterCampaignId = later.id
    const inHour = new Date(Date.now() + 3_600_000).toISOString()
    expect(
      (await callAs(server(), owner)('POST', `/campaigns/${later.id}/send`, { scheduledFor: inHour })).statusCode,
    ).toBe(200)

    // A newsletter to 109 contacts, 9 of them unknown to the receiving server: 9 of 100 sent is 9 %.
    const good = await insertContacts(owner.project.id, 'good', 100)
    const bad = await insertContacts(owner.project.id, 'bad', 9)
    const newsletter = await segmentCampaign(owner, from, 'Newsletter', [...good, ...bad])
    expect((await callAs(server(), owner)('POST', `/campaigns/${newsletter.id}/send`)).statusCode).toBe(200)
    await arrived(...Array.from({ length: 100 }, (_, i) => `good-${i + 1}@example.org`))

    await vi.waitFor(async () => {
      const view = await security(owner)
      expect(view.streams.marketing).toMatchObject({ sending: 'PAUSED', sevenDay: { total: 100, bounces: 9 } })
    }, eventually)
    const view = await security(owner)
    const transactional = { total: 30, bounces: 0, complaints: 0, bounceRate: 0, complaintRate: 0 }
    const marketing = { total: 100, bounces: 9, complaints: 0, bounceRate: 9, complaintRate: 0 }
    const all = { total: 130, bounces: 9, complaints: 0, bounceRate: (9 * 100) / 130, complaintRate: 0 }
    expect(view).toEqual({
      projectId: owner.project.id,
      // All of the project's sending is not paused: only its marketing stream.
      sending: 'ACTIVE',
      pausedReason: null,
      isDisabled: false,
      isHealthy: false,
      twentyFourHour: all,
      sevenDay: all,
      allTime: all,
      streams: {
        marketing: {
          sending: 'PAUSED',
          pausedReason: expect.stringMatching(marketingPaused),
          isHealthy: false,
          twentyFourHour: marketing,
          sevenDay: marketing,
          allTime: marketing,
        },
        transactional: {
          sending: 'ACTIVE',
          pausedReason: null,
          isHealthy: true,
          twentyFourHour: transactional,
          sevenDay: transactional,
          allTime: transactional,
        },
      },
      thresholds: {
        enabled: true,
        bounceRate: 8,
        complaintRate: 0.3,
        ceilingBounceRate: 10,
        ceilingComplaintRate: 0.5,
        minimumSent: 20,
      },
      suspensions: [
        expect.objectContaining({
          scope: 'MARKETING',
          reason: 'BOUNCE_RATE',
          message: view.streams.marketing.pausedReason,
          liftedAt: null,
        }),
      ],
    })
    // The dashboard's endpoint answers the same to a member.
    const dashboard = await server().app.inject({
      method: 'GET',
      url: `/users/@me/projects/${owner.project.id}/security`,
      headers: { cookie: owner.cookie },
    })
    expect(dashboard.json()).toEqual(view)
  })

  it('/v1/send keeps delivering to the SMTP server; its MARKETING template mail is refused with the reason', async () => {
    const reset = await send(owner, { to: 'ann@example.net', subject: 'Your reset link', body: '<p>Link</p>', from })
    expect(reset.statusCode, reset.body).toBe(200)
    const [message] = await arrived('ann@example.net')
    expect(message?.parsed.subject).toBe('Your reset link')

    const receiptTemplate = await insertTemplate(server(), owner.project.id, { from, type: 'TRANSACTIONAL' })
    expect((await send(owner, { to: 'receipt@example.net', template: receiptTemplate })).statusCode).toBe(200)
    await arrived('receipt@example.net')

    const promoTemplate = await insertTemplate(server(), owner.project.id, { from, type: 'MARKETING' })
    const promo = await send(owner, { to: 'promo@example.net', template: promoTemplate })
    expect(promo.statusCode).toBe(403)
    expect(promo.json().error).toMatchObject({ code: 'PROJECT_SENDING_PAUSED' })
    expect(promo.json().error.message).toMatch(/^Marketing sending is paused for this project: 7-day marketing bounce/)
    expect(await emailRows(owner.project.id, sql`to_email = 'promo@example.net'`)).toEqual([])
  })

  it('SMTP relay mail and a campaign test send to a member are transactional: they are delivered', async () => {
    const relay = await startRelay({ handler: createSubmissionHandler(server().ctx) })
    await createTransport({
      host: '127.0.0.1',
      port: relay.starttlsPort,
      secure: false,
      requireTLS: true,
      auth: { user: 'plunk', pass: owner.secretKey },
      tls: { rejectUnauthorized: false },
    }).sendMail({ from, to: 'relayed@example.net', subject: 'Order shipped', text: 'On its way' })
    const [relayed] = await arrived('relayed@example.net')
    expect(relayed?.parsed.subject).toBe('Order shipped')

    const draft = await createCampaignOk(server(), owner, campaignBody(from, { name: 'Fixed' }))
    const test = await callAs(server(), owner)('POST', `/campaigns/${draft.id}/test`, { email: owner.email })
    expect(test.statusCode, test.body).toBe(200)
    await arrived(owner.email)
  })

  it('a campaign is refused to start, now or later; one that comes due is held, nothing lost', async () => {
    const call = callAs(server(), owner)
    const draft = await segmentCampaign(owner, from, 'Spring', await insertContacts(owner.project.id, 'spring', 2))
    for (const body of [undefined, { scheduledFor: new Date(Date.now() + 3_600_000).toISOString() }]) {
      const response = await call('POST', `/campaigns/${draft.id}/send`, body)
      expect(response.statusCode).toBe(403)
      expect(response.json().error.code).toBe('PROJECT_SENDING_PAUSED')
      expect(response.json().error.message).toMatch(/^Marketing sending is paused for this project: 7-day marketing/)
    }
    expect((await call('GET', `/campaigns/${draft.id}`)).json().data.status).toBe('DRAFT')

    // The campaign scheduled before the pause comes due: it is queued, and every email waits at the outbox.
    await server().ctx.pool.query('UPDATE campaigns SET scheduled_for = now() WHERE id = $1', [laterCampaignId])
    wakeCampaignsLoop(server().ctx.pool)
    await vi.waitFor(async () => {
      expect(await emailRows(owner.project.id, sql`campaign_id = ${laterCampaignId}`)).toHaveLength(3)
    }, eventually)
    await settle(1_500)
    expect(await emailRows(owner.project.id, sql`campaign_id = ${laterCampaignId}`)).toEqual(
      [1, 2, 3].map((n) => ({ to_email: `later-${n}@example.org`, status: 'QUEUED', attempts: 0, held: true })),
    )
    expect(receivedBy('later-1@example.org')).toEqual([])
  })

  it('a marketing workflow step completes with its email held; a transactional step delivers', async () => {
    const marketingTemplate = await insertTemplate(server(), owner.project.id, { from, type: 'MARKETING' })
    const receiptTemplate = await insertTemplate(server(), owner.project.id, {
      from,
      type: 'TRANSACTIONAL',
      subject: 'Receipt',
    })
    const welcome = await insertWorkflow(server(), owner.project.id, {
      eventName: 'joined',
      steps: { welcome: { type: 'SEND_EMAIL', templateId: marketingTemplate, config: {} } },
      edges: [['trigger', 'welcome']],
    })
    marketingWorkflowId = welcome.id
    await insertWorkflow(server(), owner.project.id, {
      eventName: 'ordered',
      steps: { receipt: { type: 'SEND_EMAIL', templateId: receiptTemplate, config: {} } },
      edges: [['trigger', 'receipt']],
    })
    reader = (await createContact(server(), owner, { data: { name: 'Ann' } })).email
    await track(server(), owner, reader, 'ordered')
    await track(server(), owner, reader, 'joined')

    const [receipt] = await arrived(reader)
    expect(receipt?.parsed.subject).toBe('Receipt')
    const [execution] = await executionsWhen(server(), welcome.id, (rows) => rows[0]?.status === 'COMPLETED')
    const steps = await stepsOf(server(), execution?.id ?? '')
    expect(steps.find((step) => step.name === 'welcome')).toMatchObject({ status: 'COMPLETED' })
    await settle(1_500)
    expect(receivedBy(reader)).toHaveLength(1)
    expect(await emailRows(owner.project.id, sql`workflow_id = ${welcome.id}`)).toEqual([
      { to_email: reader, status: 'QUEUED', attempts: 0, held: true },
    ])
  })

  it('another project is untouched: its campaigns and marketing mail go out, and it cannot see or lift this pause', async () => {
    expect(await security(other)).toMatchObject({
      sending: 'ACTIVE',
      isHealthy: true,
      streams: { marketing: { sending: 'ACTIVE', isHealthy: true }, transactional: { sending: 'ACTIVE' } },
      suspensions: [],
    })
    const campaign = await segmentCampaign(
      other,
      otherFrom,
      'Theirs',
      await insertContacts(other.project.id, 'theirs', 2),
    )
    expect((await callAs(server(), other)('POST', `/campaigns/${campaign.id}/send`)).statusCode).toBe(200)
    const promoTemplate = await insertTemplate(server(), other.project.id, { from: otherFrom, type: 'MARKETING' })
    expect((await send(other, { to: 'their-promo@example.net', template: promoTemplate })).statusCode).toBe(200)
    await arrived('theirs-1@example.org', 'theirs-2@example.org', 'their-promo@example.net')
    // The MARKETING template's mail counts toward the marketing stream, with the campaign's.
    await vi.waitFor(async () => {
      const { streams } = await security(other)
      expect([streams.marketing.allTime.total, streams.transactional.allTime.total]).toEqual([3, 0])
    }, eventually)

    for (const request of [
      { method: 'GET' as const, url: `/projects/${owner.project.id}/security`, headers: bearer(other.secretKey) },
      {
        method: 'GET' as const,
        url: `/users/@me/projects/${owner.project.id}/security`,
        headers: { cookie: other.cookie },
      },
      {
        method: 'POST' as const,
        url: `/users/@me/projects/${owner.project.id}/security/resume`,
        headers: { cookie: other.cookie },
      },
    ]) {
      const response = await server().app.inject(request)
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Project'))
    }
    expect((await security(owner)).streams.marketing.sending).toBe('PAUSED')
  })

  it('an owner resumes: the held campaign and workflow emails go out, and campaigns start again', async () => {
    const response = await server().app.inject({
      method: 'POST',
      url: `/users/@me/projects/${owner.project.id}/security/resume`,
      headers: { cookie: owner.cookie },
    })
    expect(response.statusCode).toBe(200)
    const view = response.json<SecurityView>()
    expect(view.streams.marketing).toMatchObject({ sending: 'ACTIVE', pausedReason: null })
    expect(view.suspensions).toEqual([
      expect.objectContaining({ scope: 'MARKETING', liftedAt: expect.any(String), liftedBy: owner.userId }),
    ])
    await arrived('later-1@example.org', 'later-2@example.org', 'later-3@example.org')
    await vi.waitFor(() => expect(receivedBy(reader)).toHaveLength(2), eventually)
    // Recorded once the SMTP server's answer is written, a moment after it arrived.
    await vi.waitFor(async () => {
      expect(await emailRows(owner.project.id, sql`workflow_id = ${marketingWorkflowId}`)).toEqual([
        expect.objectContaining({ status: 'SENT', held: false }),
      ])
    }, eventually)

    const again = await segmentCampaign(owner, from, 'Again', await insertContacts(owner.project.id, 'again', 1))
    expect((await callAs(server(), owner)('POST', `/campaigns/${again.id}/send`)).statusCode).toBe(200)
    await arrived('again-1@example.org')
  })
})

describe('a project whose marketing is paused and which is disabled too', () => {
  it('the outbox holds its marketing mail, even outside the hold range; enabling releases only transactional mail', async () => {
    const { account, from } = await sender('both')
    const projectId = account.project.id
    // As the guard and a failed payment leave it (billing/webhook.ts holds every queued email the same way).
    await server().ctx.pool.query(
      "UPDATE projects SET marketing_paused_reason = 'marketing bounce rate', disabled = true WHERE id = $1",
      [projectId],
    )
    await enqueue(server(), projectId, [
      testEmail({ from: { email: from }, to: { email: 'both-receipt@example.net' } }),
      testEmail({ from: { email: from }, to: { email: 'both-promo@example.net' }, marketing: true }),
    ])
    await server().ctx.db.transaction((tx) => holdQueuedEmails(tx, [projectId]))
    expect(await emailRows(projectId, sql`true`)).toEqual([
      { to_email: 'both-promo@example.net', status: 'QUEUED', attempts: 0, held: true },
      { to_email: 'both-receipt@example.net', status: 'QUEUED', attempts: 0, held: true },
    ])

    // A paid invoice: the project is enabled and its held mail released, but marketing mail is still paused.
    await server().ctx.db.transaction(async (tx) => {
      await tx.execute(sql`UPDATE projects SET disabled = false WHERE id = ${projectId}`)
      await releaseHeldEmails(tx, projectId)
    })
    wakeOutbox(server().ctx.pool, 'all')
    await arrived('both-receipt@example.net')
    // An email that missed the hold range (a transaction racing the pause) is still held by the claim itself.
    await server().ctx.pool.query('UPDATE emails SET priority = 0 WHERE project_id = $1 AND status = $2', [
      projectId,
      'QUEUED',
    ])
    await settle(1_500)
    expect(receivedBy('both-promo@example.net')).toEqual([])
    expect(await emailRows(projectId, sql`to_email = 'both-promo@example.net'`)).toEqual([
      { to_email: 'both-promo@example.net', status: 'QUEUED', attempts: 0, held: false },
    ])
  })
})

describe('the hard ceiling', () => {
  it('transactional mail at 9 % keeps flowing with a warning; at 10 % all sending pauses', async () => {
    const { account, from } = await sender('ceiling')
    const mail = (to: string[]) => send(account, { to, subject: 'Your code', body: '<p>123456</p>', from })
    const good = Array.from({ length: 100 }, (_, i) => `code-${i}@example.net`)
    expect((await mail(good)).statusCode).toBe(200)
    await arrived(...good)
    await vi.waitFor(async () => expect((await security(account)).sevenDay.total).toBe(100), eventually)

    // 9 of 100: over the warning threshold, under the ceiling. Nothing pauses; the view warns.
    expect((await mail(Array.from({ length: 9 }, (_, i) => `bad-code-${i}@example.net`))).statusCode).toBe(200)
    await vi.waitFor(async () => expect((await security(account)).sevenDay.bounces).toBe(9), eventually)
    expect(await security(account)).toMatchObject({
      sending: 'ACTIVE',
      isHealthy: false,
      streams: {
        transactional: { sending: 'ACTIVE', isHealthy: false, sevenDay: { total: 100, bounces: 9, bounceRate: 9 } },
        marketing: { sending: 'ACTIVE', isHealthy: true, sevenDay: { total: 0 } },
      },
      suspensions: [],
    })
    expect((await mail(['still@example.net'])).statusCode).toBe(200)
    await arrived('still@example.net')

    // 10 of the 101 sent is 9.9 %: still under the ceiling; the eleventh makes 10.89 % and pauses all sending.
    expect((await mail(['bad-code-9@example.net', 'bad-code-10@example.net'])).statusCode).toBe(200)
    await vi.waitFor(async () => expect((await security(account)).sending).toBe('PAUSED'), eventually)
    const view = await security(account)
    expect(view.pausedReason).toBe(
      '7-day transactional bounce rate 10.89% (11 permanent bounces of 101 transactional emails) reached the 10% ceiling',
    )
    expect(view).toMatchObject({
      streams: {
        transactional: { sending: 'PAUSED', pausedReason: view.pausedReason },
        marketing: { sending: 'PAUSED', pausedReason: view.pausedReason },
      },
      suspensions: [expect.objectContaining({ scope: 'PROJECT', reason: 'BOUNCE_RATE' })],
    })

    const refused = await mail(['after@example.net'])
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error.message).toBe(`Sending is paused for this project: ${view.pausedReason}`)
    const handler = createSubmissionHandler(server().ctx)
    expect(await refusalOf(handler.checkSender(account.project.id, from))).toEqual({
      code: 550,
      message: `5.7.1 Sending is paused for this project: ${view.pausedReason}`,
    })
  })
})
