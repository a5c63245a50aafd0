import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { campaigns } from '../../src/db/schema/index.js'
import { callAs, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

describe('campaigns: usage of fields and events', () => {
  it('lists the campaigns whose audience, subject or body uses a data key, or whose audience names an event', async () => {
    const owner = await createAccount(server)
    const base = { projectId: owner.project.id, from: 'news@example.com', audienceType: 'ALL' as const }
    const [byAudience, byBody, neither] = await server.ctx.db
      .insert(campaigns)
      .values([
        {
          ...base,
          name: 'Buyers on pro',
          subject: 'Thanks',
          body: '<p>Hi</p>',
          audienceType: 'FILTERED',
          audienceCondition: {
            logic: 'AND',
            groups: [
              {
                filters: [
                  { field: 'data.plan', operator: 'equals', value: 'pro' },
                  { field: 'event.purchased', operator: 'triggered' },
                ],
              },
            ],
          },
        },
        { ...base, name: 'Plan news', subject: 'Your {{ data.plan }} plan', body: '<p>{{ plan | upcase }}</p>' },
        { ...base, name: 'Planet news', subject: 'Planets', body: '<p>{{ planet }} and data.planet</p>' },
      ])
      .returning({ id: campaigns.id, name: campaigns.name })
    const call = callAs(server, owner)
    // One insert gives all three the same created_at, so the answer's order among them is by id.
    const byId = (list: ({ id: string } | undefined)[]) =>
      [...list].sort((a, b) => ((a?.id ?? '') < (b?.id ?? '') ? -1 : 1))
    expect((await call('GET', '/contacts/fields/plan/usage')).json().campaigns).toEqual(byId([byAudience, byBody]))
    expect((await call('GET', '/contacts/fields/planet/usage')).json().campaigns).toEqual([neither])
    expect((await call('GET', '/events/purchased/usage')).json()).toMatchObject({ campaigns: [byAudience] })
    // Another project's key sees none of them.
    const stranger = await createAccount(server)
    expect((await callAs(server, stranger)('GET', '/contacts/fields/plan/usage')).json().campaigns).toEqual([])
    expect((await callAs(server, stranger)('GET', '/events/purchased/usage')).json().campaigns).toEqual([])
  })
})
