import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { addDomain } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { callAs, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import { notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { campaignBody, createCampaignOk } from './campaign-fixtures.js'

/*
 * With MAIL_TRANSPORT=capture a campaign's emails are kept in the Mailbox, never delivered: its stats say so with
 * `capturedCount` (and `captured` in its timeseries) instead of showing them as undelivered.
 */

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ config: { mailTransport: 'capture' } })
})
afterAll(() => server.close())

describe('a campaign sent through the capture transport', () => {
  it('counts its emails as captured, not delivered, in its stats and timeseries', async () => {
    const account = await createAccount(server)
    const call = callAs(server, account)
    await addDomain(server, account, 'captured-campaign.example.test')
    for (let n = 0; n < 3; n++) await createContact(server, account, { email: uniqueEmail('reader'), subscribed: true })
    const campaign = await createCampaignOk(server, account, campaignBody('news@captured-campaign.example.test'))
    expect((await call('POST', `/campaigns/${campaign.id}/send`, {})).statusCode).toBe(200)
    await vi.waitFor(async () => {
      expect((await call('GET', `/campaigns/${campaign.id}`)).json().data.status).toBe('SENT')
    }, eventually)

    const stats = await call('GET', `/campaigns/${campaign.id}/stats`)
    expect(stats.statusCode).toBe(200)
    expect(stats.json().data).toMatchObject({
      totalRecipients: 3,
      sentCount: 3,
      capturedCount: 3,
      deliveredCount: 0,
      deliveryRate: 0,
    })
    const series = (await call('GET', `/campaigns/${campaign.id}/timeseries`)).json()
    const total = (activity: string) =>
      series.data
        .filter((point: { activity: string }) => point.activity === activity)
        .reduce((sum: number, point: { count: number }) => sum + point.count, 0)
    expect([total('sent'), total('captured'), total('delivered')]).toEqual([3, 3, 0])

    const mailbox = (await call('GET', '/mailbox')).json()
    expect(mailbox.total).toBe(3)

    // Another project's key cannot read the count.
    const other = await createAccount(server)
    const foreign = await callAs(server, other)('GET', `/campaigns/${campaign.id}/stats`)
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json()).toEqual(notFoundBody('Campaign'))
  })
})
