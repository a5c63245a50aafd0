import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { sweepSegmentsJob } from '../../src/modules/segments/jobs.js'
import { eventually } from '../helpers/emails.js'
import { waitForDispatch } from '../helpers/events.js'
import { type Account, bearer, callAs, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { activeMembers, createSegment, dataEquals, segmentEvents, storedSegment } from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.close())

const call = (owner: Account) => callAs(server, owner)

function track(owner: Account, email: string, event: string, data: Record<string, unknown> = {}) {
  return server.app.inject({
    method: 'POST',
    url: '/v1/track',
    headers: bearer(owner.publicKey),
    payload: { email, event, data },
  })
}

function segmentEvent(name: string, contactId: string, segment: { id: string; name: string }) {
  return { name, contactId, data: { segmentId: segment.id, segmentName: segment.name } }
}

const triggered = (event: string) => ({
  logic: 'AND',
  groups: [{ filters: [{ field: `event.${event}`, operator: 'triggered' }] }],
})

describe('segments: compute of a tracked dynamic segment', () => {
  it('enters the matching contacts with one event each, then exits those that stop matching', async () => {
    const owner = await createAccount(server)
    const ann = await createContact(server, owner, { data: { plan: 'pro' } })
    const bob = await createContact(server, owner, { data: { plan: 'pro' } })
    await createContact(server, owner, { data: { plan: 'free' } })
    const segment = await createSegment(server, owner, {
      name: 'VIP Customers!',
      condition: dataEquals('plan', 'pro'),
      trackMembership: true,
    })

    const first = await call(owner)('POST', `/segments/${segment.id}/compute`)
    expect(first.statusCode).toBe(200)
    expect(first.json()).toEqual({ added: 2, removed: 0, total: 2 })
    expect(await activeMembers(server, segment.id)).toEqual([ann.id, bob.id].sort())
    const entries = [ann, bob].map((contact) => segmentEvent('segment.vip-customers.entry', contact.id, segment))
    expect(await segmentEvents(server, owner.project.id)).toEqual(
      entries.sort((a, b) => a.contactId.localeCompare(b.contactId)),
    )

    // They are events like any other in the project's log.
    const listed = await call(owner)('GET', '/events?name=segment.vip-customers.entry')
    expect(listed.statusCode).toBe(200)
    expect(listed.json().data).toHaveLength(2)
    expect(listed.json().data).toEqual(
      expect.arrayContaining(
        [ann, bob].map((contact) => expect.objectContaining({ contactId: contact.id, email: contact.email })),
      ),
    )

    // Nothing changed: nothing enters or exits again.
    expect((await call(owner)('POST', `/segments/${segment.id}/compute`)).json()).toEqual({
      added: 0,
      removed: 0,
      total: 2,
    })
    expect(await segmentEvents(server, owner.project.id)).toHaveLength(2)

    // Ann leaves the plan (written straight to the table, so only compute can notice).
    await server.ctx.db.execute(sql`UPDATE contacts SET data = '{"plan":"free"}' WHERE id = ${ann.id}`)
    expect((await call(owner)('POST', `/segments/${segment.id}/compute`)).json()).toEqual({
      added: 0,
      removed: 1,
      total: 1,
    })
    expect(await activeMembers(server, segment.id)).toEqual([bob.id])
    expect(await segmentEvents(server, owner.project.id)).toContainEqual(
      segmentEvent('segment.vip-customers.exit', ann.id, segment),
    )
    expect((await storedSegment(server, segment.id))?.memberCount).toBe(1)

    // Back in: the same membership row is reused, with a new entry.
    await server.ctx.db.execute(sql`UPDATE contacts SET data = '{"plan":"pro"}' WHERE id = ${ann.id}`)
    expect((await call(owner)('POST', `/segments/${segment.id}/compute`)).json()).toEqual({
      added: 1,
      removed: 0,
      total: 2,
    })
    const annEvents = (await segmentEvents(server, owner.project.id)).filter((event) => event.contactId === ann.id)
    expect(annEvents.map((event) => event.name).sort()).toEqual([
      'segment.vip-customers.entry',
      'segment.vip-customers.entry',
      'segment.vip-customers.exit',
    ])
  })

  it('emits nothing for an untracked segment, whatever its contacts do', async () => {
    const owner = await createAccount(server)
    await createSegment(server, owner, { name: 'Buyers', condition: triggered('purchased') })
    const contact = await createContact(server, owner)
    expect((await track(owner, contact.email, 'purchased')).statusCode).toBe(200)
    await waitForDispatch(server, owner.project.id)
    expect(await segmentEvents(server, owner.project.id)).toEqual([])
  })
})

describe('segments: a single contact re-evaluated as it changes', () => {
  it('a tracked event moves the contact into the segment, with its entry event, within seconds', async () => {
    const owner = await createAccount(server)
    const contact = await createContact(server, owner)
    await createContact(server, owner)
    const segment = await createSegment(server, owner, {
      name: 'Buyers',
      condition: triggered('purchased'),
      trackMembership: true,
    })
    const started = Date.now()
    expect((await track(owner, contact.email, 'purchased', { total: 12 })).statusCode).toBe(200)
    await vi.waitFor(
      async () =>
        expect(await segmentEvents(server, owner.project.id)).toEqual([
          segmentEvent('segment.buyers.entry', contact.id, segment),
        ]),
      eventually,
    )
    expect(Date.now() - started).toBeLessThan(5_000)
    // Only the contact with the event is a member, and a second event changes nothing.
    expect(await activeMembers(server, segment.id)).toEqual([contact.id])
    expect((await track(owner, contact.email, 'purchased')).statusCode).toBe(200)
    await waitForDispatch(server, owner.project.id)
    expect(await segmentEvents(server, owner.project.id)).toHaveLength(1)
  })

  it('an unsubscribe through PATCH /contacts moves the contact out, with its exit event', async () => {
    const owner = await createAccount(server)
    const contact = await createContact(server, owner, { subscribed: true })
    const segment = await createSegment(server, owner, {
      name: 'Subscribers',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }] }] },
      trackMembership: true,
    })
    expect((await call(owner)('POST', `/segments/${segment.id}/compute`)).json()).toMatchObject({ added: 1 })
    const patched = await call(owner)('PATCH', `/contacts/${contact.id}`, { subscribed: false })
    expect(patched.statusCode).toBe(200)
    await vi.waitFor(
      async () =>
        expect(await segmentEvents(server, owner.project.id)).toContainEqual(
          segmentEvent('segment.subscribers.exit', contact.id, segment),
        ),
      eventually,
    )
    expect(await activeMembers(server, segment.id)).toEqual([])
    // Segment events themselves do not feed back into the segment.
    await waitForDispatch(server, owner.project.id)
    expect(await segmentEvents(server, owner.project.id)).toHaveLength(2)
  })

  it('tracked data moves the contact between segments keyed on it', async () => {
    const owner = await createAccount(server)
    const contact = await createContact(server, owner, { data: { plan: 'free' } })
    const pro = await createSegment(server, owner, {
      name: 'Pro plan',
      condition: dataEquals('plan', 'pro'),
      trackMembership: true,
    })
    const free = await createSegment(server, owner, {
      name: 'Free plan',
      condition: dataEquals('plan', 'free'),
      trackMembership: true,
    })
    await call(owner)('POST', `/segments/${free.id}/compute`)
    expect((await track(owner, contact.email, 'upgraded', { plan: 'pro' })).statusCode).toBe(200)
    await vi.waitFor(async () => {
      const events = await segmentEvents(server, owner.project.id)
      expect(events).toContainEqual(segmentEvent('segment.pro-plan.entry', contact.id, pro))
      expect(events).toContainEqual(segmentEvent('segment.free-plan.exit', contact.id, free))
    }, eventually)
  })
})

describe('segments: contacts written through the contacts API', () => {
  it('a data change through PATCH, or a new contact through POST, moves it at once, with its events', async () => {
    const owner = await createAccount(server)
    const contact = await createContact(server, owner, { data: { plan: 'free' } })
    const pro = await createSegment(server, owner, {
      name: 'Pro customers',
      condition: dataEquals('plan', 'pro'),
      trackMembership: true,
    })
    const patched = await call(owner)('PATCH', `/contacts/${contact.id}`, { data: { plan: 'pro' } })
    expect(patched.statusCode).toBe(200)
    // Re-evaluated in the request's own transaction: the entry is there when the answer is.
    expect(await segmentEvents(server, owner.project.id)).toEqual([
      segmentEvent('segment.pro-customers.entry', contact.id, pro),
    ])
    const created = await call(owner)('POST', '/contacts', { email: 'new-pro@example.com', data: { plan: 'pro' } })
    expect(created.statusCode).toBe(201)
    await call(owner)('PATCH', `/contacts/${contact.id}`, { data: { plan: 'free' } })
    expect(await segmentEvents(server, owner.project.id)).toEqual(
      expect.arrayContaining([
        segmentEvent('segment.pro-customers.entry', created.json().id, pro),
        segmentEvent('segment.pro-customers.exit', contact.id, pro),
      ]),
    )
    expect(await activeMembers(server, pro.id)).toEqual([created.json().id])
  })
})

describe('segments: membership of a static segment in a tracked condition', () => {
  it('adding and removing members moves them in and out of a tracked segment that tests the list', async () => {
    const owner = await createAccount(server)
    const contact = await createContact(server, owner, { data: { plan: 'pro' } })
    const list = await createSegment(server, owner, { name: 'Invited', type: 'STATIC' })
    const invitedPro = await createSegment(server, owner, {
      name: 'Invited pro',
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: `segment.${list.id}`, operator: 'memberOfSegment' },
              { field: 'data.plan', operator: 'equals', value: 'pro' },
            ],
          },
        ],
      },
      trackMembership: true,
    })
    await call(owner)('POST', `/segments/${list.id}/members`, { emails: [contact.email] })
    // In the same request: the untracked list publishes nothing the bus could carry.
    expect(await segmentEvents(server, owner.project.id)).toEqual([
      segmentEvent('segment.invited-pro.entry', contact.id, invitedPro),
    ])
    await call(owner)('DELETE', `/segments/${list.id}/members`, { emails: [contact.email] })
    expect(await segmentEvents(server, owner.project.id)).toContainEqual(
      segmentEvent('segment.invited-pro.exit', contact.id, invitedPro),
    )
    expect(await activeMembers(server, invitedPro.id)).toEqual([])
  })
})

describe('segments: a tracked static segment', () => {
  it('emits entry and exit events as members are added and removed, once per real change', async () => {
    const owner = await createAccount(server)
    const ann = await createContact(server, owner)
    const bob = await createContact(server, owner)
    const segment = await createSegment(server, owner, { name: 'Beta testers', type: 'STATIC', trackMembership: true })
    const members = `/segments/${segment.id}/members`
    await call(owner)('POST', members, { emails: [ann.email, bob.email] })
    await call(owner)('POST', members, { emails: [ann.email] })
    await call(owner)('DELETE', members, { emails: [bob.email] })
    await call(owner)('DELETE', members, { emails: [bob.email] })
    const expected = [
      segmentEvent('segment.beta-testers.entry', ann.id, segment),
      segmentEvent('segment.beta-testers.entry', bob.id, segment),
      segmentEvent('segment.beta-testers.exit', bob.id, segment),
    ]
    expect(await segmentEvents(server, owner.project.id)).toEqual(
      expected.sort((a, b) => `${a.name} ${a.contactId}`.localeCompare(`${b.name} ${b.contactId}`)),
    )
  })

  it('emits nothing when the static segment is not tracked', async () => {
    const owner = await createAccount(server)
    const ann = await createContact(server, owner)
    const segment = await createSegment(server, owner, { name: 'Quiet', type: 'STATIC' })
    await call(owner)('POST', `/segments/${segment.id}/members`, { emails: [ann.email] })
    await call(owner)('DELETE', `/segments/${segment.id}/members`, { emails: [ann.email] })
    expect(await segmentEvents(server, owner.project.id)).toEqual([])
  })
})

describe('segments: the background sweep', () => {
  it('refreshes cached counts and computes tracked segments, with their events', async () => {
    const owner = await createAccount(server)
    const counted = await createSegment(server, owner, { name: 'Counted', condition: dataEquals('plan', 'pro') })
    const tracked = await createSegment(server, owner, {
      name: 'Tracked',
      condition: dataEquals('plan', 'pro'),
      trackMembership: true,
    })
    expect(counted.memberCount).toBe(0)
    // Written straight to the table: no event announces them, only the sweep can find them.
    const inserted = await server.ctx.db.execute<{ id: string }>(sql`
      INSERT INTO contacts (project_id, email, data)
      SELECT ${owner.project.id}, 'swept-' || n || '@example.com', '{"plan":"pro"}'
      FROM generate_series(1, 3) AS n RETURNING id`)
    // Counted long enough ago to be due.
    await server.ctx.db.execute(
      sql`UPDATE segments SET member_count_at = now() - interval '1 hour' WHERE project_id = ${owner.project.id}`,
    )
    await server.ctx.boss.send(sweepSegmentsJob.name, {})
    await vi.waitFor(async () => {
      expect((await storedSegment(server, counted.id))?.memberCount).toBe(3)
      expect((await storedSegment(server, tracked.id))?.memberCount).toBe(3)
    }, eventually)
    const listed = (await call(owner)('GET', '/segments')).json<{ id: string; memberCount: number }[]>()
    expect(listed.map(({ id, memberCount }) => ({ id, memberCount }))).toEqual([
      { id: tracked.id, memberCount: 3 },
      { id: counted.id, memberCount: 3 },
    ])
    expect(await activeMembers(server, counted.id)).toEqual([])
    expect(await activeMembers(server, tracked.id)).toEqual(inserted.rows.map((row) => row.id).sort())
    expect(await segmentEvents(server, owner.project.id)).toHaveLength(3)
  })
})
