import { simpleParser } from 'mailparser'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { MailboxPage } from '../../src/modules/captured-mail/schemas.js'
import { addDomain } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
let account: Account

beforeAll(async () => {
  server = await startTestServer({ config: { mailTransport: 'capture', publicUrl: 'https://mail.example.org' } })
  account = await createAccount(server, 'Acme <News>')
  await addDomain(server, account, 'links.example.com')
})
afterAll(() => server.close())

type Links = { unsubscribe: string; subscribe: string; manage: string; contactId: string }

/** Sends an email whose body carries the three links, then reads them back out of the captured message. */
async function linksFromAnEmail(to: string): Promise<Links> {
  const sent = await server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(account.secretKey),
    payload: {
      to,
      from: 'news@links.example.com',
      subscribed: true,
      subject: 'Links',
      body: '<a href="{{unsubscribeUrl}}">u</a> <a href="{{subscribeUrl}}">s</a> <a href="{{manageUrl}}">m</a>',
    },
  })
  expect(sent.statusCode).toBe(200)
  const emailId = sent.json().data.emails[0].email
  const contactId = sent.json().data.emails[0].contact.id
  const message = await vi.waitFor(async () => {
    const page = (
      await server.app.inject({ method: 'GET', url: '/mailbox', headers: bearer(account.secretKey) })
    ).json<MailboxPage>()
    const found = page.data.find((entry) => entry.emailId === emailId)
    expect(found).toBeDefined()
    return found
  }, eventually)
  const raw = await server.app.inject({
    method: 'GET',
    url: `/mailbox/${message?.id}.eml`,
    headers: bearer(account.secretKey),
  })
  const html = String((await simpleParser(raw.rawPayload)).html)
  const hrefs = [...html.matchAll(/href="https:\/\/mail\.example\.org([^"]+)"/g)].map((match) => match[1] ?? '')
  const [unsubscribe = '', subscribe = '', manage = ''] = hrefs
  return { unsubscribe, subscribe, manage, contactId }
}

async function contactState(contactId: string) {
  const contact = await server.ctx.pool.query('SELECT subscribed FROM contacts WHERE id = $1', [contactId])
  const events = await server.ctx.pool.query(
    "SELECT name FROM events WHERE contact_id = $1 AND name LIKE 'contact.%' ORDER BY created_at",
    [contactId],
  )
  return { subscribed: contact.rows[0]?.subscribed, events: events.rows.map((row) => row.name) }
}

// The contacts here are created subscribed by their first send, which publishes no event: only flips do.
describe('subscription links in an email', () => {
  it('are signed per contact, never guessable from the contact id', async () => {
    const links = await linksFromAnEmail('signed@example.net')
    expect(links.unsubscribe).toMatch(/^\/unsubscribe\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    expect(links.unsubscribe).not.toContain(links.contactId)
    expect(links.subscribe).toMatch(/^\/subscribe\//)
    expect(links.manage).toMatch(/^\/manage\//)
  })

  it('a GET only shows a page; the one-click POST unsubscribes at once, once', async () => {
    const links = await linksFromAnEmail('oneclick@example.net')
    const page = await server.app.inject({ method: 'GET', url: links.unsubscribe })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toContain('text/html')
    expect(page.body).toContain('oneclick@example.net')
    expect(page.body).toContain('Acme &lt;News&gt;')
    expect((await contactState(links.contactId)).subscribed).toBe(true)

    const oneClick = {
      method: 'POST' as const,
      url: links.unsubscribe,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    }
    expect((await server.app.inject(oneClick)).statusCode).toBe(200)
    expect((await server.app.inject(oneClick)).statusCode).toBe(200)
    expect(await contactState(links.contactId)).toEqual({
      subscribed: false,
      events: ['contact.unsubscribed'],
    })
  })

  it('the subscribe and manage pages resubscribe and toggle with a form POST', async () => {
    const links = await linksFromAnEmail('manage@example.net')
    await server.app.inject({ method: 'POST', url: links.unsubscribe })
    const resubscribed = await server.app.inject({ method: 'POST', url: links.subscribe })
    expect(resubscribed.statusCode).toBe(200)
    expect((await contactState(links.contactId)).subscribed).toBe(true)

    const manage = await server.app.inject({ method: 'GET', url: links.manage })
    expect(manage.body).toContain('You are subscribed')
    const toggled = await server.app.inject({
      method: 'POST',
      url: links.manage,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'subscribed=false',
    })
    expect(toggled.body).toContain('You are not subscribed')
    expect(await contactState(links.contactId)).toEqual({
      subscribed: false,
      events: ['contact.unsubscribed', 'contact.subscribed', 'contact.unsubscribed'],
    })
  })

  it('a tampered link, or one made for another purpose, shows a friendly page and changes nothing', async () => {
    const links = await linksFromAnEmail('tamper@example.net')
    const token = links.unsubscribe.split('/').pop() ?? ''
    const tampered = `/unsubscribe/${token.slice(0, -3)}AAA`
    const otherPurpose = `/subscribe/${token}`
    for (const url of [tampered, otherPurpose, '/unsubscribe/garbage']) {
      const response = await server.app.inject({ method: 'POST', url })
      expect(response.statusCode, url).toBe(404)
      expect(response.body).toContain('This link is not valid')
      expect(response.body).not.toMatch(/stack|error:/i)
    }
    expect((await contactState(links.contactId)).subscribed).toBe(true)
  })
})
