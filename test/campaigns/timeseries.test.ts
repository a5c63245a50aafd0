import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emails } from '../../src/db/schema/index.js'
import { addDomain } from '../helpers/domains.js'
import { type Account, callAs, createAccount } from '../helpers/factories.js'
import { itRequiresTheSecretKey, notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { campaignBody, createCampaignOk } from './campaign-fixtures.js'

let server: TestServer
let account: Account

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
  await addDomain(server, account, 'timeseries.mailroom.test')
})
afterAll(() => server?.close())

const at = (time: string) => new Date(`2026-03-01T${time}Z`)

async function insertEmail(campaignId: string, moments: Partial<Record<'sentAt' | 'deliveredAt' | 'openedAt', Date>>) {
  await server.ctx.db.insert(emails).values({
    projectId: account.project.id,
    campaignId,
    fromEmail: 'news@timeseries.mailroom.test',
    toEmail: 'reader@example.com',
    subject: 'Hi',
    html: '<p>Hi</p>',
    messageId: `${crypto.randomUUID()}@timeseries.mailroom.test`,
    status: 'SENT',
    ...moments,
  })
}

describe('campaign timeseries', () => {
  it("counts the campaign's emails by the UTC hour or day of each first activity, and no other campaign's", async () => {
    const campaign = await createCampaignOk(server, account, campaignBody('news@timeseries.mailroom.test'))
    const other = await createCampaignOk(server, account, campaignBody('news@timeseries.mailroom.test'))
    await insertEmail(campaign.id, { sentAt: at('10:15:00'), deliveredAt: at('10:16:00'), openedAt: at('11:30:00') })
    await insertEmail(campaign.id, { sentAt: at('10:40:00'), deliveredAt: at('10:41:00') })
    await insertEmail(campaign.id, {})
    await insertEmail(other.id, { sentAt: at('10:15:00') })
    const hourly = await callAs(server, account)('GET', `/campaigns/${campaign.id}/timeseries`)
    expect(hourly.statusCode, hourly.body).toBe(200)
    expect(hourly.json()).toEqual({
      granularity: 'hour',
      data: [
        { bucket: '2026-03-01T10:00:00.000Z', activity: 'delivered', count: 2 },
        { bucket: '2026-03-01T10:00:00.000Z', activity: 'sent', count: 2 },
        { bucket: '2026-03-01T11:00:00.000Z', activity: 'opened', count: 1 },
      ],
    })
    const daily = await callAs(server, account)('GET', `/campaigns/${campaign.id}/timeseries?granularity=day`)
    expect(daily.json().data).toEqual([
      { bucket: '2026-03-01T00:00:00.000Z', activity: 'delivered', count: 2 },
      { bucket: '2026-03-01T00:00:00.000Z', activity: 'opened', count: 1 },
      { bucket: '2026-03-01T00:00:00.000Z', activity: 'sent', count: 2 },
    ])
  })
})

describe('campaign timeseries: scoping', () => {
  itRequiresTheSecretKey(() => server, [['GET', '/campaigns/8c5e1f9a-3f55-4f86-9c8e-1b2d3c4e5f60/timeseries']])

  it("answers another project's campaign with 404", async () => {
    const campaign = await createCampaignOk(server, account, campaignBody('news@timeseries.mailroom.test'))
    const stranger = await createAccount(server)
    const response = await callAs(server, stranger)('GET', `/campaigns/${campaign.id}/timeseries`)
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual(notFoundBody('Campaign'))
  })
})
