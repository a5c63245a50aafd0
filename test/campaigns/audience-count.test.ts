import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { suppressions } from '../../src/db/schema/index.js'
import { addDomain } from '../helpers/domains.js'
import { type Account, callAs, createAccount, createContact } from '../helpers/factories.js'
import { itRequiresTheSecretKey, notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createSegment, dataEquals } from '../segments/helpers.js'
import { campaignBody, createCampaignOk } from './campaign-fixtures.js'

let server: TestServer
let account: Account

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
  await addDomain(server, account, 'audience-count.mailroom.test')
  await createContact(server, account, { data: { plan: 'pro' } })
  await createContact(server, account, { data: { plan: 'pro' } })
  await createContact(server, account, { subscribed: false, data: { plan: 'pro' } })
  const suppressed = await createContact(server, account, { data: { plan: 'pro' } })
  await createContact(server, account, { data: { plan: 'free' } })
  await server.ctx.db
    .insert(suppressions)
    .values({ projectId: account.project.id, email: suppressed.email, reason: 'bounce' })
})
afterAll(() => server?.close())

const count = (body: object, owner = account) => callAs(server, owner)('POST', '/campaigns/audience/count', body)

describe('campaign audience count: accepts', () => {
  it('counts subscribed, unsuppressed contacts, as the campaign saved with that audience counts them', async () => {
    const segment = await createSegment(server, account, { name: 'Pro', condition: dataEquals('plan', 'pro') })
    const audiences = [
      { audienceType: 'ALL' },
      { audienceType: 'FILTERED', audienceCondition: dataEquals('plan', 'pro') },
      { audienceType: 'SEGMENT', segmentId: segment.id },
      { audienceType: 'FILTERED', audienceCondition: dataEquals('plan', 'pro'), type: 'TRANSACTIONAL' },
    ]
    const totals = []
    for (const audience of audiences) {
      const response = await count(audience)
      expect(response.statusCode, response.body).toBe(200)
      const campaign = await createCampaignOk(
        server,
        account,
        campaignBody('news@audience-count.mailroom.test', audience),
      )
      expect(response.json()).toEqual({ total: campaign.totalRecipients })
      totals.push(campaign.totalRecipients)
    }
    expect(totals).toEqual([3, 2, 2, 3])
  })
})

describe('campaign audience count: rejects', () => {
  it('answers a missing companion field with 400 and a bad filter with 422 at its path', async () => {
    const missing = await count({ audienceType: 'SEGMENT' })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().error.errors).toEqual([expect.objectContaining({ field: 'segmentId' })])
    const bad = await count({
      audienceType: 'FILTERED',
      audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'subscribed', operator: 'contains' }] }] },
    })
    expect(bad.statusCode).toBe(422)
    expect(bad.json().error.errors).toEqual([
      expect.objectContaining({ field: 'audienceCondition.groups.0.filters.0.operator' }),
    ])
  })
})

describe('campaign audience count: scoping', () => {
  itRequiresTheSecretKey(() => server, [['POST', '/campaigns/audience/count', { audienceType: 'ALL' }]])

  it("answers another project's segment with 404, and counts none of its contacts", async () => {
    const stranger = await createAccount(server)
    const theirs = await createSegment(server, stranger, { name: 'Theirs', type: 'STATIC' })
    const response = await count({ audienceType: 'SEGMENT', segmentId: theirs.id })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual(notFoundBody('Segment'))
    expect((await count({ audienceType: 'ALL' }, stranger)).json()).toEqual({ total: 0 })
  })
})
