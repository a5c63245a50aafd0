import { count, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { domains, emails, memberships } from '../../src/db/schema/index.js'
import type { TestDnsServer } from '../helpers/dns-server.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { type CampaignJson, campaignBody, createCampaignOk, storedCampaign } from './campaign-fixtures.js'

let sink: SmtpSink
let env: ServerWithDns
let server: TestServer
let dns: TestDnsServer

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  ;({ server, dns } = env)
})
afterEach(() => sink.reset())
afterAll(async () => {
  await env?.close()
  await sink?.close()
})

type Setup = { owner: Account; campaign: CampaignJson; domainId: string }

/** An account with tracking on for every email, a verified domain and a campaign that uses contact data. */
async function setup(): Promise<Setup> {
  const owner = await createAccount(server)
  const tracking = await server.app.inject({
    method: 'PATCH',
    url: `/users/@me/projects/${owner.project.id}`,
    headers: { cookie: owner.cookie },
    payload: { tracking: 'ENABLED' },
  })
  expect(tracking.statusCode).toBe(200)
  const domain = await addVerifiedDomain(
    server,
    dns,
    owner,
    `t${Math.random().toString(36).slice(2, 10)}.mailroom.test`,
  )
  const campaign = await createCampaignOk(
    server,
    owner,
    campaignBody(`news@${domain.domain}`, {
      subject: 'Hello {{ firstName ?? "friend" }}',
      body: '<p>Hi {{ firstName ?? "friend" }}, see <a href="https://example.org/spring">spring</a></p>',
      fromName: 'Shop',
    }),
  )
  return { owner, campaign, domainId: domain.id }
}

function sendTest(owner: Account, campaignId: string, email: string) {
  return server.app.inject({
    method: 'POST',
    url: `/campaigns/${campaignId}/test`,
    headers: bearer(owner.secretKey),
    payload: { email },
  })
}

async function emailCount(projectId: string): Promise<number> {
  const [row] = await server.ctx.db.select({ n: count() }).from(emails).where(eq(emails.projectId, projectId))
  return row?.n ?? 0
}

describe('campaign test send', () => {
  it("delivers one untracked [TEST] copy to a member, rendered with the member's contact data", async () => {
    const { owner, campaign } = await setup()
    await createContact(server, owner, { email: owner.email, data: { firstName: 'Ann' } })
    const response = await sendTest(owner, campaign.id, owner.email.toUpperCase())
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, message: `Test email sent to ${owner.email}` })

    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope.to).toEqual([owner.email])
    expect(message?.parsed.subject).toBe('[TEST] Hello Ann')
    expect(message?.parsed.from?.value).toEqual([{ address: campaign.from, name: 'Shop' }])
    expect(message?.parsed.headers.get('x-mailroom-test')).toBe('true')
    expect(message?.parsed.html).toContain('Hi Ann, see <a href="https://example.org/spring">spring</a>')
    // No open pixel, no click redirect, although the project tracks every email.
    expect(message?.parsed.html).not.toContain('/t/')
    expect(message?.parsed.html).not.toContain('<img')

    const [row] = await server.ctx.db.select().from(emails).where(eq(emails.projectId, owner.project.id))
    expect(row).toMatchObject({ campaignId: null, contactId: null, tracked: false })
    expect(await storedCampaign(server, campaign.id)).toMatchObject({ sentCount: 0, totalRecipients: 0 })
  })

  it('renders with empty data for a member who is no contact of the project', async () => {
    const { owner, campaign } = await setup()
    const colleague = await createAccount(server)
    await server.ctx.db.insert(memberships).values({ projectId: owner.project.id, userId: colleague.userId })
    expect((await sendTest(owner, campaign.id, colleague.email)).statusCode).toBe(200)
    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope.to).toEqual([colleague.email])
    expect(message?.parsed.subject).toBe('[TEST] Hello friend')
    expect(message?.parsed.html).toContain('Hi friend')
  })

  it('refuses any address that is not a project member’s with 403, queuing nothing', async () => {
    const { owner, campaign } = await setup()
    const outsider = await createAccount(server)
    const contact = await createContact(server, owner, { subscribed: true })
    for (const email of [uniqueEmail('stranger'), outsider.email, contact.email]) {
      const response = await sendTest(owner, campaign.id, email)
      expect(response.statusCode, email).toBe(403)
      expect(response.json()).toEqual({
        success: false,
        error: {
          code: 'FORBIDDEN',
          message: 'Test emails can only be sent to the address of a member of this project',
          statusCode: 403,
          requestId: expect.any(String),
          suggestion: expect.any(String),
        },
        timestamp: expect.any(String),
      })
    }
    expect(await emailCount(owner.project.id)).toBe(0)
  })

  it('refuses with 403 when the sender domain is no longer verified', async () => {
    const { owner, campaign, domainId } = await setup()
    await server.ctx.db.update(domains).set({ status: 'PENDING' }).where(eq(domains.id, domainId))
    const response = await sendTest(owner, campaign.id, owner.email)
    expect(response.statusCode).toBe(403)
    expect(response.json().error.code).toBe('FORBIDDEN')
    expect(await emailCount(owner.project.id)).toBe(0)
  })

  it('rejects a missing or malformed address with 422', async () => {
    const { owner, campaign } = await setup()
    for (const payload of [{}, { email: 'not-an-address' }, { email: [owner.email] }]) {
      const response = await server.app.inject({
        method: 'POST',
        url: `/campaigns/${campaign.id}/test`,
        headers: bearer(owner.secretKey),
        payload,
      })
      expect(response.statusCode, JSON.stringify(payload)).toBe(422)
      expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'email' }] })
    }
  })
})
