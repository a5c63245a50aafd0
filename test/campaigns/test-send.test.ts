import { count, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { contacts, domains, emails, events, memberships } from '../../src/db/schema/index.js'
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

/** A campaign of the setup's sender whose body links to the unsubscribe and preferences pages. */
async function campaignWithLinks(owner: Account, from: string): Promise<CampaignJson> {
  return createCampaignOk(
    server,
    owner,
    campaignBody(from, {
      body: '<p>News</p><p><a href="{{ unsubscribeUrl }}">Unsubscribe</a> · <a href="{{ manageUrl }}">Preferences</a></p>',
    }),
  )
}

/** The path of the link with this text in the message's HTML part (the server runs at PUBLIC_URL's root). */
function linkPath(html: string | false | undefined, text: string): string {
  const href = new RegExp(`<a href="([^"]+)">${text}</a>`).exec(html || '')?.[1] ?? ''
  expect(href).toMatch(/^https?:\/\//)
  return new URL(href).pathname
}

function getPage(path: string) {
  return server.app.inject({ method: 'GET', url: path })
}

function postForm(path: string, form = '') {
  return server.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form,
  })
}

/** The action of the page's form, as a path. */
function formAction(page: string): string {
  return new URL(/<form method="post" action="([^"]+)"/.exec(page)?.[1] ?? '').pathname
}

async function eventCount(projectId: string): Promise<number> {
  const [row] = await server.ctx.db.select({ n: count() }).from(events).where(eq(events.projectId, projectId))
  return row?.n ?? 0
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

  it('its unsubscribe link opens the unsubscribe page as a preview that changes nothing, for a member who is no contact', async () => {
    const { owner, campaign } = await setup()
    const withLinks = await campaignWithLinks(owner, campaign.from)
    const colleague = await createAccount(server)
    await server.ctx.db.insert(memberships).values({ projectId: owner.project.id, userId: colleague.userId })
    const other = await createContact(server, owner, { subscribed: true })
    expect((await sendTest(owner, withLinks.id, colleague.email)).statusCode).toBe(200)
    const [message] = await sink.waitForMessages(1)
    const unsubscribe = linkPath(message?.parsed.html, 'Unsubscribe')
    expect(unsubscribe).toMatch(/^\/unsubscribe\/[\w-]+\.[\w-]+$/)
    // The text part carries the same link (on a line of its own: it is longer than the line).
    expect(message?.parsed.text).toContain(`Unsubscribe\n[http://localhost:3000${unsubscribe}]`)

    const eventsBefore = await eventCount(owner.project.id)
    const page = await getPage(unsubscribe)
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('<h1>Unsubscribe?</h1>')
    expect(page.body).toContain(colleague.email)
    expect(page.body).toContain('This is a preview from a test email: nothing is changed for this address.')
    const done = await postForm(formAction(page.body))
    expect(done.statusCode).toBe(200)
    expect(done.body).toContain('<h1>You have been unsubscribed</h1>')
    expect(done.body).toContain('This is a preview from a test email')
    // One-click (RFC 8058) on the preview link is a preview too.
    expect((await postForm(unsubscribe, 'List-Unsubscribe=One-Click')).statusCode).toBe(200)

    const manage = await postForm(linkPath(message?.parsed.html, 'Preferences'), 'subscribed=false')
    expect(manage.statusCode).toBe(200)
    expect(manage.body).toContain('You are not subscribed to emails from')

    // No contact was made for the member, and no contact of the project changed.
    const rows = await server.ctx.db
      .select({ email: contacts.email, subscribed: contacts.subscribed })
      .from(contacts)
      .where(eq(contacts.projectId, owner.project.id))
    expect(rows).toEqual([{ email: other.email, subscribed: true }])
    expect(await eventCount(owner.project.id)).toBe(eventsBefore)
    // A preview link is no link of another purpose, and a changed one is no link at all.
    expect((await getPage(unsubscribe.replace('/unsubscribe/', '/subscribe/'))).statusCode).toBe(404)
    expect((await getPage(`${unsubscribe.slice(0, -1)}${unsubscribe.endsWith('A') ? 'B' : 'A'}`)).statusCode).toBe(404)
  })

  it("its unsubscribe link unsubscribes the member's own contact, and no other, outside the campaign's counts", async () => {
    const { owner, campaign } = await setup()
    const withLinks = await campaignWithLinks(owner, campaign.from)
    const own = await createContact(server, owner, { email: owner.email, subscribed: true })
    const other = await createContact(server, owner, { subscribed: true })
    expect((await sendTest(owner, withLinks.id, owner.email)).statusCode).toBe(200)
    const [message] = await sink.waitForMessages(1)

    const page = await getPage(linkPath(message?.parsed.html, 'Unsubscribe'))
    expect(page.statusCode).toBe(200)
    expect(page.body).not.toContain('preview')
    expect((await postForm(formAction(page.body))).statusCode).toBe(200)

    const subscribed = async (id: string) =>
      (await server.ctx.db.select({ s: contacts.subscribed }).from(contacts).where(eq(contacts.id, id)))[0]?.s
    expect(await subscribed(own.id)).toBe(false)
    expect(await subscribed(other.id)).toBe(true)
    expect(await storedCampaign(server, withLinks.id)).toMatchObject({ unsubscribedCount: 0 })
  })
})
