import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { campaigns, domains } from '../../src/db/schema/index.js'
import { checkCampaignContent } from '../../src/modules/campaigns/presend/check.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { type Account, bearer, callAs, createAccount } from '../helpers/factories.js'
import { addMember, type Member } from '../helpers/members.js'
import { notFoundBody } from '../helpers/scoping.js'
import type { TestServer } from '../helpers/server.js'
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { campaignBody, createCampaignOk, storedCampaign } from './campaign-fixtures.js'

const prose =
  '<p>Our spring range is in: linen shirts, light jackets and the new canvas bags, all made to last for years.</p>'
const unsubscribe = '<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>'
/** 120 kB of real content: past the point where Gmail clips a message. */
const longBody = `${prose.repeat(1_100)}${unsubscribe}`

let sink: SmtpSink
let env: ServerWithDns
let server: TestServer
let owner: Account
let from: string
let domainName: string
let member: Member
let admin: Member

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  server = env.server
  owner = await createAccount(server, 'Presend')
  domainName = (await addVerifiedDomain(server, env.dns, owner, `presend-${process.pid}.mailroom.test`)).domain
  from = `news@${domainName}`
  await server.ctx.db.execute(sql`
    INSERT INTO contacts (project_id, email, subscribed)
    VALUES (${owner.project.id}, 'ada@readers.example', true), (${owner.project.id}, 'bo@readers.example', true)`)
  member = await addMember(server, owner, 'MEMBER')
  admin = await addMember(server, owner, 'ADMIN')
})
afterAll(async () => {
  await env?.close()
  await sink?.close()
})

type Caller = Account | Member
/** As a session user of the owner's project (cookie + X-Project-Id), or with the secret key for an Account. */
function asSession(caller: Caller) {
  return (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    server.app.inject({
      method,
      url,
      headers: { cookie: caller.cookie, 'x-project-id': owner.project.id },
      ...(payload ? { payload } : {}),
    })
}
const withKey = callAs

async function newCampaign(overrides: Record<string, unknown>, account = owner, sender = from) {
  return createCampaignOk(server, account, campaignBody(sender, { body: `${prose}${unsubscribe}`, ...overrides }))
}

function arrivedWithSubject(subject: string): ReceivedMessage[] {
  return sink.messages.filter((message) => message.parsed.subject === subject)
}

async function emailCount(campaignId: string): Promise<number> {
  const result = await server.ctx.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM emails WHERE campaign_id = ${campaignId}`,
  )
  return result.rows[0]?.n ?? 0
}

/** The spec's error body of a refused send, with the error findings as field errors. */
function refusedBody(codes: string[], suggestion: RegExp) {
  return {
    success: false,
    error: {
      code: 'PRESEND_CHECK_FAILED',
      message: `The pre-send check found ${codes.length === 1 ? 'an error' : `${codes.length} errors`}: ${codes.join(', ')}`,
      statusCode: 422,
      requestId: expect.any(String),
      errors: codes.map((code) => ({ field: 'body', code, message: expect.any(String) })),
      details: { findings: expect.arrayContaining(codes.map((code) => expect.objectContaining({ code }))) },
      suggestion: expect.stringMatching(suggestion),
    },
    timestamp: expect.any(String),
  }
}

describe('pre-send check: refuses, and an owner overrides', () => {
  it('refuses a campaign without an unsubscribe link and one of 120 kB, to send and to schedule, changing nothing', async () => {
    const noLink = await newCampaign({ subject: 'No way out', body: prose.repeat(2) })
    const tooLong = await newCampaign({ subject: 'Too long to read', body: longBody })
    expect(Buffer.byteLength(longBody)).toBeGreaterThan(120_000)
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString()
    for (const [campaign, code] of [
      [noLink, 'unsubscribe_link_missing'],
      [tooLong, 'html_too_large'],
    ] as const) {
      for (const body of [{}, { scheduledFor: tomorrow }, { force: false }]) {
        const refused = await withKey(server, owner)('POST', `/campaigns/${campaign.id}/send`, body)
        expect(refused.statusCode, refused.body).toBe(422)
        expect(refused.json()).toEqual(refusedBody([code], /send anyway with \{"force": true\}/))
      }
      expect(await storedCampaign(server, campaign.id)).toMatchObject({
        status: 'DRAFT',
        scheduledFor: null,
        presendOverride: null,
      })
      expect(await emailCount(campaign.id)).toBe(0)
    }
  })

  it('an owner sends both anyway with force: the mail reaches the SMTP sink and the override is kept', async () => {
    const noLink = await newCampaign({ subject: 'Sent without a link', body: prose.repeat(2) })
    const tooLong = await newCampaign({ subject: 'Sent though long', body: longBody })

    const bySession = await asSession(owner)('POST', `/campaigns/${noLink.id}/send`, { force: true })
    expect(bySession.statusCode, bySession.body).toBe(200)
    expect(bySession.json()).toMatchObject({ message: 'Campaign is being sent', data: { status: 'SENDING' } })
    // The secret key is the project's owner-equivalent key (README, "Who may do what").
    const byKey = await withKey(server, owner)('POST', `/campaigns/${tooLong.id}/send`, { force: true })
    expect(byKey.statusCode, byKey.body).toBe(200)

    await vi.waitFor(() => {
      expect(arrivedWithSubject('Sent without a link')).toHaveLength(2)
      expect(arrivedWithSubject('Sent though long')).toHaveLength(2)
    }, eventually)
    const [long] = arrivedWithSubject('Sent though long')
    expect(long?.parsed.html).toEqual(expect.stringContaining('all made to last for years'))
    expect(Buffer.byteLength(long?.parsed.html || '')).toBeGreaterThan(120_000)
    expect(long?.raw.toString('latin1')).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m)
    expect(
      arrivedWithSubject('Sent without a link')
        .flatMap((message) => message.envelope.to)
        .sort(),
    ).toEqual(['ada@readers.example', 'bo@readers.example'])

    const checked = await withKey(server, owner)('GET', `/campaigns/${noLink.id}/check`)
    expect(checked.json().data).toMatchObject({
      blocked: true,
      override: { userId: owner.userId, at: expect.any(String), codes: ['unsubscribe_link_missing'] },
    })
    expect((await storedCampaign(server, tooLong.id))?.presendOverride).toMatchObject({
      userId: null,
      codes: ['html_too_large'],
    })
  })

  it('an owner schedules anyway with force; a scheduled edit may keep the accepted errors but add none', async () => {
    const campaign = await newCampaign({ subject: 'Scheduled without a link', body: prose.repeat(2) })
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString()
    const scheduled = await withKey(server, owner)('POST', `/campaigns/${campaign.id}/send`, {
      scheduledFor: tomorrow,
      force: true,
    })
    expect(scheduled.statusCode, scheduled.body).toBe(200)
    expect(scheduled.json().data).toMatchObject({ status: 'SCHEDULED', scheduledFor: tomorrow })

    const edit = (payload: object) => asSession(member)('PUT', `/campaigns/${campaign.id}`, payload)
    expect((await edit({ body: prose.repeat(3) })).statusCode).toBe(200)
    const added = await edit({ body: `${prose.repeat(1_100)}` })
    expect(added.statusCode).toBe(422)
    expect(added.json()).toEqual(refusedBody(['html_too_large'], /cancel the schedule/))
    expect((await storedCampaign(server, campaign.id))?.body).toBe(prose.repeat(3))
    // Fields the check does not read change freely.
    expect((await edit({ name: 'Renamed while scheduled' })).statusCode).toBe(200)
  })

  it('a scheduled campaign that passed the check may not be edited into one that fails it', async () => {
    const campaign = await newCampaign({ subject: 'Scheduled clean' })
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString()
    expect(
      (await asSession(member)('POST', `/campaigns/${campaign.id}/send`, { scheduledFor: tomorrow })).statusCode,
    ).toBe(200)
    expect((await storedCampaign(server, campaign.id))?.presendOverride).toBeNull()
    const broken = await withKey(server, owner)('PUT', `/campaigns/${campaign.id}`, { body: prose.repeat(2) })
    expect(broken.statusCode).toBe(422)
    expect(broken.json()).toEqual(refusedBody(['unsubscribe_link_missing'], /cancel the schedule/))
    expect(await storedCampaign(server, campaign.id)).toMatchObject({
      status: 'SCHEDULED',
      body: `${prose}${unsubscribe}`,
    })
  })

  it('a member or an admin cannot override: 403 with force, 422 without, and nothing changes', async () => {
    const campaign = await newCampaign({ subject: 'Not theirs to force', body: prose.repeat(2) })
    for (const caller of [member, admin]) {
      const forced = await asSession(caller)('POST', `/campaigns/${campaign.id}/send`, { force: true })
      expect(forced.statusCode).toBe(403)
      expect(forced.json().error).toMatchObject({
        code: 'FORBIDDEN',
        message: 'Only a project owner can send a campaign despite its pre-send errors',
        details: { requiredRole: 'OWNER', role: caller === member ? 'MEMBER' : 'ADMIN' },
      })
      const refused = await asSession(caller)('POST', `/campaigns/${campaign.id}/send`)
      expect(refused.json()).toEqual(refusedBody(['unsubscribe_link_missing'], /ask a project owner/))
    }
    // A member may not force even a campaign without errors: the flag itself is an owner's.
    const clean = await newCampaign({ subject: 'Clean but forced' })
    expect((await asSession(member)('POST', `/campaigns/${clean.id}/send`, { force: true })).statusCode).toBe(403)
    for (const id of [campaign.id, clean.id]) {
      expect(await storedCampaign(server, id)).toMatchObject({ status: 'DRAFT', presendOverride: null })
      expect(await emailCount(id)).toBe(0)
    }
  })

  it('warnings never block: a campaign with only warnings is sent, and its check lists them', async () => {
    const campaign = await newCampaign({
      subject: 'BIG SPRING NEWS',
      body: `<p>Read <a href="https://bit.ly/spring">this</a> <img src="http://192.0.2.9/logo.png"></p>${unsubscribe}`,
    })
    const check = await asSession(member)('GET', `/campaigns/${campaign.id}/check`)
    expect(check.statusCode).toBe(200)
    const { data } = check.json()
    expect(data).toMatchObject({ errors: 0, blocked: false, override: null })
    expect(data.findings.map((item: { code: string }) => item.code).sort()).toEqual([
      'image_missing_alt',
      'link_ip_address',
      'link_shortener',
      'one_click_not_https',
      'subject_all_caps',
      'text_part_thin',
    ])
    expect(data.warnings).toBe(6)
    const sent = await asSession(member)('POST', `/campaigns/${campaign.id}/send`)
    expect(sent.statusCode, sent.body).toBe(200)
    await vi.waitFor(() => expect(arrivedWithSubject('BIG SPRING NEWS')).toHaveLength(2), eventually)
  })
})

describe('pre-send check: the sender domain', () => {
  it('from_domain_not_ready: a domain whose DKIM record is no longer verified is an error (a warning in capture mode)', async () => {
    const campaign = await newCampaign({ subject: 'Domain gone' })
    await server.ctx.db
      .update(domains)
      .set({ status: 'PENDING', recordStatus: { DKIM: 'pending' } })
      .where(eq(domains.domain, domainName))
    try {
      const check = await withKey(server, owner)('GET', `/campaigns/${campaign.id}/check`)
      const finding = {
        code: 'from_domain_not_ready',
        field: 'from',
        message: expect.stringContaining(`${domainName} is not verified: its DKIM record is not found in DNS yet`),
        examples: ['domain_unverified'],
      }
      expect(check.json().data).toMatchObject({ blocked: true, errors: 1 })
      expect(check.json().data.findings).toEqual([
        { ...finding, severity: 'error' },
        expect.objectContaining({ code: 'one_click_not_https' }),
      ])
      const row = await storedCampaign(server, campaign.id)
      if (!row) throw new Error('campaign missing')
      const capture = { ...server.ctx.config, mailTransport: 'capture' as const }
      expect(await checkCampaignContent(server.ctx.db, capture, owner.project.id, row)).toEqual([
        expect.objectContaining({ code: 'one_click_not_https' }),
        { ...finding, severity: 'warning', message: expect.stringContaining('does not block here') },
      ])
    } finally {
      await server.ctx.db
        .update(domains)
        .set({ status: 'VERIFIED', recordStatus: { DKIM: 'verified' } })
        .where(eq(domains.domain, domainName))
    }
  })

  it("reads only the project's own domain: another project's verified copy of it does not count", async () => {
    const other = await createAccount(server, 'Same domain')
    const shared = `shared-${process.pid}.mailroom.test`
    await addVerifiedDomain(server, env.dns, owner, shared)
    const pending = await addDomain(server, other, shared)
    expect(pending.status).toBe('PENDING')
    // Made while verified elsewhere is impossible over the API: write the draft straight in.
    const [row] = await server.ctx.db
      .insert(campaigns)
      .values({
        projectId: other.project.id,
        name: 'Borrowed domain',
        subject: 'Hello',
        body: `${prose}${unsubscribe}`,
        from: `news@${shared}`,
        audienceType: 'ALL',
      })
      .returning()
    const check = await withKey(server, other)('GET', `/campaigns/${row?.id}/check`)
    expect(check.json().data.findings[0]).toMatchObject({ code: 'from_domain_not_ready', severity: 'error' })
  })
})

describe('pre-send check: bad input', () => {
  it('a 5 MB body gets findings, on the check and on a send, in bounded time and never a 500', async () => {
    const row =
      '<tr><td><p>Hello <b>world</b> <a href="https://bit.ly/x">link</a><img src="https://x.example/a.png"></p></td></tr>'
    const body = `<table>${row.repeat(Math.ceil(5_000_000 / row.length))}</table>`
    // The API takes bodies up to 1 MB; an older or imported row may hold more.
    const [campaign] = await server.ctx.db
      .insert(campaigns)
      .values({ projectId: owner.project.id, name: 'Huge', subject: 'Huge', body, from, audienceType: 'ALL' })
      .returning()
    const started = performance.now()
    const check = await withKey(server, owner)('GET', `/campaigns/${campaign?.id}/check`)
    expect(check.statusCode).toBe(200)
    expect(check.json().data.findings.map((item: { code: string }) => item.code)).toEqual([
      'unsubscribe_link_missing',
      'html_too_large',
      'one_click_not_https',
      'link_shortener',
      'image_missing_alt',
    ])
    const send = await withKey(server, owner)('POST', `/campaigns/${campaign?.id}/send`)
    expect(send.statusCode).toBe(422)
    expect(send.json().error.errors.map((error: { code: string }) => error.code)).toEqual([
      'unsubscribe_link_missing',
      'html_too_large',
    ])
    expect(performance.now() - started).toBeLessThan(20_000)
    expect((await storedCampaign(server, campaign?.id ?? ''))?.status).toBe('DRAFT')
  })

  it('HTML that does not parse is refused with where it breaks', async () => {
    const campaign = await newCampaign({
      subject: 'Broken comment',
      body: `${prose}${unsubscribe}\n<!--[if mso]><table><tr><td>${prose}</td></tr></table>`,
    })
    const refused = await withKey(server, owner)('POST', `/campaigns/${campaign.id}/send`)
    expect(refused.statusCode).toBe(422)
    expect(refused.json().error.details.findings[0]).toEqual({
      code: 'html_unparseable',
      severity: 'error',
      field: 'body',
      message: expect.stringContaining('never closed'),
      examples: ['a comment at line 2'],
    })
  })
})

describe('pre-send check: templates', () => {
  const template = (overrides: Record<string, unknown>) => ({
    name: 'Newsletter',
    subject: 'Spring',
    body: prose.repeat(2),
    from,
    ...overrides,
  })

  it('a MARKETING template is saved whatever its findings; its check gives them with their weight in a campaign', async () => {
    const saved = await withKey(server, owner)('POST', '/templates', template({ type: 'MARKETING' }))
    expect(saved.statusCode).toBe(201)
    // The save answers the spec's Template, nothing more.
    expect(Object.keys(saved.json()).sort()).toEqual([
      'body',
      'createdAt',
      'description',
      'from',
      'fromName',
      'id',
      'name',
      'projectId',
      'replyTo',
      'subject',
      'type',
      'updatedAt',
    ])
    const check = await asSession(member)('GET', `/templates/${saved.json().id}/check`)
    expect(check.statusCode).toBe(200)
    expect(check.json()).toEqual({
      findings: [
        expect.objectContaining({ code: 'unsubscribe_link_missing', severity: 'error', field: 'body' }),
        expect.objectContaining({ code: 'one_click_not_https', severity: 'warning' }),
      ],
      errors: 1,
      warnings: 1,
    })
  })

  it('a TRANSACTIONAL template needs no unsubscribe link; the other checks still apply', async () => {
    const saved = await withKey(server, owner)(
      'POST',
      '/templates',
      template({ type: 'TRANSACTIONAL', subject: 'YOUR RECEIPT', body: `${prose}<img src="https://x.example/r.png">` }),
    )
    const check = await withKey(server, owner)('GET', `/templates/${saved.json().id}/check`)
    expect(check.json().findings.map((item: { code: string }) => item.code)).toEqual([
      'text_part_thin',
      'image_missing_alt',
      'subject_all_caps',
    ])
  })
})

describe('pre-send check: isolation', () => {
  it("another project's campaign and template are not found, and its campaign cannot be forced", async () => {
    const stranger = await createAccount(server, 'Stranger')
    const campaign = await newCampaign({ subject: 'Mine alone', body: prose.repeat(2) })
    const template = await withKey(server, owner)('POST', '/templates', {
      name: 'Mine',
      subject: 'Mine',
      body: prose,
      from,
    })
    const call = withKey(server, stranger)
    expect((await call('GET', `/campaigns/${campaign.id}/check`)).json()).toEqual(notFoundBody('Campaign'))
    expect((await call('GET', `/templates/${template.json().id}/check`)).json()).toEqual(notFoundBody('Template'))
    const forced = await call('POST', `/campaigns/${campaign.id}/send`, { force: true })
    expect(forced.json()).toEqual(notFoundBody('Campaign'))
    expect(await storedCampaign(server, campaign.id)).toMatchObject({ status: 'DRAFT', presendOverride: null })
    // The owner of another project is no owner here: a session of it cannot name this project.
    const session = await server.app.inject({
      method: 'POST',
      url: `/campaigns/${campaign.id}/send`,
      headers: { cookie: stranger.cookie, 'x-project-id': owner.project.id },
      payload: { force: true },
    })
    expect(session.statusCode).toBe(404)
    expect(await emailCount(campaign.id)).toBe(0)
  })

  it('the check routes need a key or a session', async () => {
    const campaign = await newCampaign({ subject: 'Keyed' })
    for (const headers of [{}, bearer(owner.publicKey)]) {
      const response = await server.app.inject({ method: 'GET', url: `/campaigns/${campaign.id}/check`, headers })
      expect(response.statusCode).toBe(401)
    }
  })
})
