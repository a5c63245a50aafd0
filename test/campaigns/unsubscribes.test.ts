import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subscriptionUrl } from '../../src/mail/outbound/subscription-links.js'
import { applyTracking } from '../../src/mail/outbound/tracking-html.js'
import { emailTracker } from '../../src/mail/outbound/tracking-links.js'
import { addDomain } from '../helpers/domains.js'
import { type Account, bearer, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { type CampaignJson, campaignBody, createCampaignOk, storedCampaign } from './campaign-fixtures.js'

const publicUrl = 'https://mail.example.org'
let server: TestServer
let account: Account
let campaign: CampaignJson

beforeAll(async () => {
  server = await startTestServer({ config: { mailTransport: 'capture', publicUrl }, worker: false })
  account = await createAccount(server)
  await addDomain(server, account, 'unsub.example.com')
  campaign = await createCampaignOk(server, account, campaignBody('news@unsub.example.com'))
})
afterAll(() => server?.close())

/** The path of a subscription link of the contact, naming the campaign when given. */
function linkPath(purpose: 'unsubscribe' | 'manage', contactId: string, campaignId?: string): string {
  const url = subscriptionUrl(publicUrl, server.config.secret, purpose, {
    projectId: account.project.id,
    contactId,
    campaignId,
  })
  return url.slice(publicUrl.length)
}

function post(path: string, form = '') {
  return server.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form,
  })
}

async function unsubscribedCount(): Promise<number> {
  const stats = await server.app.inject({
    method: 'GET',
    url: `/campaigns/${campaign.id}/stats`,
    headers: bearer(account.secretKey),
  })
  return stats.json().data.unsubscribedCount
}

async function resubscribe(contactId: string): Promise<void> {
  const response = await server.app.inject({
    method: 'PATCH',
    url: `/contacts/${contactId}`,
    headers: bearer(account.secretKey),
    payload: { subscribed: true },
  })
  expect(response.statusCode).toBe(200)
}

describe('unsubscribes through a campaign email', () => {
  it("count once in the campaign's unsubscribedCount, through the confirmation page's form too", async () => {
    const before = await storedCampaign(server, campaign.id)
    const first = await createContact(server, account, { subscribed: true })
    const page = await server.app.inject({ method: 'GET', url: linkPath('unsubscribe', first.id, campaign.id) })
    const action = /<form method="post" action="([^"]+)"/.exec(page.body)?.[1] ?? ''
    expect(action.startsWith(`${publicUrl}/unsubscribe/`)).toBe(true)
    expect((await post(action.slice(publicUrl.length))).statusCode).toBe(200)
    expect(await unsubscribedCount()).toBe(1)

    // A mailbox provider's one-click POST after the recipient's own click changes nothing more.
    expect((await post(linkPath('unsubscribe', first.id, campaign.id), 'List-Unsubscribe=One-Click')).statusCode).toBe(
      200,
    )
    expect(await unsubscribedCount()).toBe(1)

    const second = await createContact(server, account, { subscribed: true })
    expect((await post(linkPath('manage', second.id, campaign.id), 'subscribed=false')).statusCode).toBe(200)
    expect(await unsubscribedCount()).toBe(2)
    // The campaign was not edited: its updatedAt stays.
    expect((await storedCampaign(server, campaign.id))?.updatedAt).toEqual(before?.updatedAt)
  })

  it('do not count for a link without a campaign, or one that resubscribes', async () => {
    const start = await unsubscribedCount()
    const contact = await createContact(server, account, { subscribed: true })
    await post(linkPath('unsubscribe', contact.id))
    await resubscribe(contact.id)
    await post(linkPath('manage', contact.id, campaign.id), 'subscribed=true')
    expect(await unsubscribedCount()).toBe(start)
  })

  it('keep their campaign-named links out of click tracking', () => {
    const subject = { projectId: account.project.id, contactId: '7e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b' }
    const { options } = emailTracker({
      publicUrl,
      secret: server.config.secret,
      emailId: '5a4f3e2d-1c0b-4e7d-8c6b-7e2d1c0b9a8f',
      projectId: account.project.id,
    })
    const link = subscriptionUrl(publicUrl, server.config.secret, 'unsubscribe', {
      ...subject,
      campaignId: campaign.id,
    })
    const tracked = applyTracking(`<a href="${link}">Leave</a> <a href="https://example.org/news">News</a>`, options)
    expect(tracked).toContain(`<a href="${link}">Leave</a>`)
    expect(tracked).not.toContain('href="https://example.org/news"')
  })
})
