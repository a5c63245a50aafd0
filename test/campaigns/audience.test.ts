import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConditionTree } from '../../src/conditions/tree.js'
import { suppressions } from '../../src/db/schema/index.js'
import { AppError } from '../../src/errors.js'
import { audienceSql, type CampaignAudience, countAudience } from '../../src/modules/campaigns/audience.js'
import { type Account, type ContactJson, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { addMembers, insertSegment } from './campaign-fixtures.js'

let server: TestServer
let account: Account
let other: Account
/** Contacts of `account` by role. */
let people: Record<'pro' | 'free' | 'unsubscribedPro' | 'suppressedPro' | 'suppressedUnsubscribed', ContactJson>

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
  other = await createAccount(server)
  people = {
    pro: await createContact(server, account, { subscribed: true, data: { plan: 'pro' } }),
    free: await createContact(server, account, { subscribed: true, data: { plan: 'free' } }),
    unsubscribedPro: await createContact(server, account, { subscribed: false, data: { plan: 'pro' } }),
    suppressedPro: await createContact(server, account, { subscribed: true, data: { plan: 'pro' } }),
    suppressedUnsubscribed: await createContact(server, account, { subscribed: false }),
  }
  await server.ctx.db.insert(suppressions).values([
    { projectId: account.project.id, email: people.suppressedPro.email, reason: 'bounce' },
    { projectId: account.project.id, email: people.suppressedUnsubscribed.email, reason: 'complaint' },
  ])
  // Another project's contacts, one with the same address as a contact here, never count.
  await createContact(server, other, { subscribed: true, data: { plan: 'pro' } })
  await createContact(server, other, { email: people.pro.email, subscribed: true, data: { plan: 'pro' } })
})
afterAll(() => server?.close())

const proOnly: ConditionTree = {
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
}

function audience(overrides: Partial<CampaignAudience>): CampaignAudience {
  return { audienceType: 'ALL', audienceCondition: null, segmentId: null, type: 'MARKETING', ...overrides }
}

/** The ids the predicate selects from the whole contacts table, as the fan-out will use it. */
async function selectedIds(campaign: CampaignAudience, projectId = account.project.id, now?: Date): Promise<string[]> {
  const contact = sql`c`
  const result = await server.ctx.db.execute<{ id: string }>(
    sql`SELECT c.id FROM contacts AS c WHERE ${await audienceSql(server.ctx.db, projectId, campaign, contact, now)}`,
  )
  return result.rows.map((row) => row.id).sort()
}

const ids = (...contacts: ContactJson[]) => contacts.map((contact) => contact.id).sort()

describe('campaign audience', () => {
  it('ALL: every subscribed contact of the project, never a suppressed address', async () => {
    const campaign = audience({})
    expect(await selectedIds(campaign)).toEqual(ids(people.pro, people.free))
    expect(await countAudience(server.ctx.db, account.project.id, campaign)).toBe(2)
  })

  it('TRANSACTIONAL reaches unsubscribed contacts too, but still never a suppressed address', async () => {
    const campaign = audience({ type: 'TRANSACTIONAL' })
    expect(await selectedIds(campaign)).toEqual(ids(people.pro, people.free, people.unsubscribedPro))
    expect(await countAudience(server.ctx.db, account.project.id, campaign)).toBe(3)
    const filtered = audience({ type: 'TRANSACTIONAL', audienceType: 'FILTERED', audienceCondition: proOnly })
    expect(await selectedIds(filtered)).toEqual(ids(people.pro, people.unsubscribedPro))
  })

  it('HEADLESS campaigns follow the marketing rule: subscribed contacts only', async () => {
    expect(await countAudience(server.ctx.db, account.project.id, audience({ type: 'HEADLESS' }))).toBe(2)
  })

  it('FILTERED: the contacts its condition matches, subscribed and not suppressed', async () => {
    const campaign = audience({ audienceType: 'FILTERED', audienceCondition: proOnly })
    expect(await selectedIds(campaign)).toEqual(ids(people.pro))
    expect(await countAudience(server.ctx.db, account.project.id, campaign)).toBe(1)
  })

  it('measures "within" from the given moment, so a chunked fan-out can hold one moment for every chunk', async () => {
    const recent: CampaignAudience = audience({
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'createdAt', operator: 'within', value: 1, unit: 'days' }] }],
      },
    })
    expect(await selectedIds(recent)).toEqual(ids(people.pro, people.free))
    const dayAfterTomorrow = new Date(Date.now() + 2 * 86_400_000)
    expect(await selectedIds(recent, account.project.id, dayAfterTomorrow)).toEqual([])
  })

  it('SEGMENT of a STATIC segment: its active members only', async () => {
    const segmentId = await insertSegment(server, account.project.id, { type: 'STATIC' })
    await addMembers(server, segmentId, [people.pro.id, people.unsubscribedPro.id, people.suppressedPro.id])
    await addMembers(server, segmentId, [people.free.id], new Date())
    const campaign = audience({ audienceType: 'SEGMENT', segmentId })
    expect(await selectedIds(campaign)).toEqual(ids(people.pro))
    expect(await selectedIds({ ...campaign, type: 'TRANSACTIONAL' })).toEqual(ids(people.pro, people.unsubscribedPro))
    expect(await countAudience(server.ctx.db, account.project.id, campaign)).toBe(1)
  })

  it('SEGMENT of a DYNAMIC segment: its condition evaluated now, whatever memberships say', async () => {
    const segmentId = await insertSegment(server, account.project.id, { type: 'DYNAMIC', condition: proOnly })
    // A stale membership row from an earlier computation does not make a contact a member.
    await addMembers(server, segmentId, [people.free.id])
    const campaign = audience({ audienceType: 'SEGMENT', segmentId })
    expect(await selectedIds(campaign)).toEqual(ids(people.pro))
    expect(await countAudience(server.ctx.db, account.project.id, campaign)).toBe(1)
  })

  it('never selects contacts of another project, even with a segment or condition that would match them', async () => {
    const segmentId = await insertSegment(server, account.project.id, { type: 'DYNAMIC', condition: proOnly })
    for (const campaign of [
      audience({}),
      audience({ audienceType: 'FILTERED', audienceCondition: proOnly }),
      audience({ audienceType: 'SEGMENT', segmentId }),
    ]) {
      const selected = await selectedIds(campaign)
      expect(selected.every((id) => Object.values(people).some((person) => person.id === id))).toBe(true)
    }
  })

  it('refuses a segment that is gone or belongs to another project with a 400, instead of an empty audience', async () => {
    const foreign = await insertSegment(server, other.project.id)
    for (const segmentId of [foreign, null]) {
      const error = await countAudience(
        server.ctx.db,
        account.project.id,
        audience({ audienceType: 'SEGMENT', segmentId }),
      ).catch((err: unknown) => err)
      expect(error).toBeInstanceOf(AppError)
      expect(error).toMatchObject({ code: 'BAD_REQUEST' })
    }
  })
})
