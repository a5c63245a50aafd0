import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import {
  type BusEvent,
  dispatchBatchSize,
  dispatchPendingEvents,
  maxDeliveryAttempts,
  subscribeToEvents,
} from '../../src/events/bus.js'
import { dispatchEventsLoop } from '../../src/events/dispatcher.js'
import { eventually } from '../helpers/emails.js'
import { publish, undispatchedEvents, waitForDispatch } from '../helpers/events.js'
import {
  type Account,
  bearer,
  callAs,
  createAccount,
  createContact,
  type Method,
  uniqueEmail,
} from '../helpers/factories.js'
import { waitOnLoops } from '../helpers/loops.js'
import { itRequiresTheSecretKey } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createSegment, dataEquals } from '../segments/helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

function call(account: Account, method: Method, url: string, payload?: object) {
  return callAs(server, account)(method, url, payload)
}

async function track(account: Account, email: string, event: string, data?: Record<string, unknown>) {
  const response = await call(account, 'POST', '/events/track', { email, event, ...(data ? { data } : {}) })
  expect(response.statusCode).toBe(200)
  return response.json().data as { contact: string; event: string; timestamp: string }
}

describe('event bus', () => {
  it('hands a tracked event, once committed, to an in-app subscriber', async () => {
    const received: BusEvent[] = []
    const unsubscribe = subscribeToEvents(async (events) => {
      received.push(...events)
    })
    try {
      const account = await createAccount(server)
      const tracked = await track(account, uniqueEmail(), 'bus-check', { n: 1 })
      await waitOnLoops(async () => expect(received.map((event) => event.id)).toContain(tracked.event), 5_000)
      expect(received.find((event) => event.id === tracked.event)).toEqual({
        id: tracked.event,
        projectId: account.project.id,
        contactId: tracked.contact,
        name: 'bus-check',
        data: { n: 1 },
        createdAt: new Date(tracked.timestamp),
      })
      // Subscribers run inside the dispatch transaction; the position moves past the event as it commits.
      await waitForDispatch(server, account.project.id)
    } finally {
      unsubscribe()
    }
  })

  it('redelivers a batch whose subscriber failed', async () => {
    let failures = 0
    const delivered: string[] = []
    const unsubscribe = subscribeToEvents(async (events) => {
      if (failures++ === 0) throw new Error('subscriber down')
      delivered.push(...events.map((event) => event.id))
    })
    try {
      const account = await createAccount(server)
      const tracked = await track(account, uniqueEmail(), 'retry-check')
      await waitOnLoops(async () => expect(delivered).toContain(tracked.event), 10_000)
    } finally {
      unsubscribe()
    }
  })

  it('isolates an event its subscribers keep rejecting, delivering the others and then dropping it', async () => {
    const isolated = await startTestServer({ worker: false })
    const delivered: string[] = []
    // Subscribers are the process's: this one hears only the isolated server's bus, not the file's other server.
    const unsubscribe = subscribeToEvents(async (events, { ctx }) => {
      if (ctx !== isolated.ctx) return
      if (events.some((event) => event.name === 'poison')) throw new Error('cannot handle poison')
      delivered.push(...events.map((event) => event.name))
    })
    try {
      const account = await createAccount(isolated)
      for (const name of ['before', 'poison', 'after']) {
        const response = await isolated.app.inject({
          method: 'POST',
          url: '/v1/track',
          headers: bearer(account.publicKey),
          payload: { email: uniqueEmail(), event: name },
        })
        expect(response.statusCode).toBe(200)
      }
      let failures = 0
      // Until the bus has passed all three: a look may find nothing yet while another test's transaction on the
      // shared server holds the line back, so a look that dispatches nothing is not the end.
      await vi.waitFor(async () => {
        await dispatchPendingEvents(isolated.ctx).catch(() => {
          failures += 1
        })
        expect(await undispatchedEvents(isolated)).toBe(0)
      }, eventually)
      expect(delivered).toEqual(['before', 'after'])
      expect(failures).toBe(maxDeliveryAttempts)
      expect(await undispatchedEvents(isolated)).toBe(0)
    } finally {
      unsubscribe()
      await isolated.close()
    }
  })
  it('dispatches again at once only after a full batch or while isolating a failed one', async () => {
    const isolated = await startTestServer({ worker: false })
    let rejecting = false
    const unsubscribe = subscribeToEvents(async (events, { ctx }) => {
      if (ctx === isolated.ctx && rejecting && events.length > 1) throw new Error('subscriber down')
    })
    const run = () => dispatchEventsLoop.run(isolated.ctx)
    try {
      const account = await createAccount(isolated)
      const events = (count: number) =>
        Array.from({ length: count }, (_, n) => ({ projectId: account.project.id, contactId: null, name: `e-${n}` }))
      // One transaction, so all of them become dispatchable together (a shared server can hold the line back).
      await publish(isolated, events(dispatchBatchSize + 1))
      await vi.waitFor(async () => expect(await run()).toBe(true), eventually)
      expect(await run()).toBe(false)
      expect(await undispatchedEvents(isolated)).toBe(0)

      rejecting = true
      await publish(isolated, events(2))
      await vi.waitFor(() => expect(run()).rejects.toThrow('subscriber down'), eventually)
      expect(await run()).toBe(true)
      expect(await run()).toBe(false)
      expect(await undispatchedEvents(isolated)).toBe(0)
    } finally {
      unsubscribe()
      await isolated.close()
    }
  })
  it('never passes over an event committed late by a transaction that started earlier, nor hands one out twice', async () => {
    const isolated = await startTestServer({ worker: false })
    const delivered: string[] = []
    const unsubscribe = subscribeToEvents(async (events, { ctx }) => {
      if (ctx === isolated.ctx) delivered.push(...events.map((event) => event.name))
    })
    const early = await isolated.ctx.pool.connect()
    try {
      const account = await createAccount(isolated)
      const event = (name: string) => ({ projectId: account.project.id, contactId: null, name })
      // The early transaction takes its id first, then commits its event after a later one's has committed.
      await early.query('BEGIN')
      await early.query('SELECT pg_current_xact_id()')
      await publish(isolated, [event('later')])
      expect(await dispatchPendingEvents(isolated.ctx)).toBe(0)
      await early.query("INSERT INTO events (project_id, name) VALUES ($1, 'earlier')", [account.project.id])
      await early.query('COMMIT')

      // Dispatchers two at a time: one holds the position, the other hands out nothing. (Another transaction of
      // this database can hold the line back for a moment, hence the waiting.)
      await vi.waitFor(async () => {
        await Promise.all([dispatchPendingEvents(isolated.ctx), dispatchPendingEvents(isolated.ctx)])
        expect(delivered.length).toBeGreaterThanOrEqual(2)
      }, eventually)
      expect(delivered.sort()).toEqual(['earlier', 'later'])
      expect(await undispatchedEvents(isolated)).toBe(0)
    } finally {
      early.release()
      unsubscribe()
      await isolated.close()
    }
  })
  it('does not hold events back for a transaction of another database on the same server, however long it stays open', async () => {
    // The dispatcher loop runs here: it is what learns which running transactions are another database's.
    const isolated = await startTestServer()
    const delivered: string[] = []
    const unsubscribe = subscribeToEvents(async (events, { ctx }) => {
      if (ctx === isolated.ctx) delivered.push(...events.map((event) => event.name))
    })
    // In the server's administration database (never the template, which every clone needs idle).
    const elsewhere = new pg.Client({ connectionString: inject('adminUrl') })
    await elsewhere.connect()
    try {
      await elsewhere.query('BEGIN')
      await elsewhere.query('SELECT pg_current_xact_id()')
      const account = await createAccount(isolated)
      await publish(isolated, [{ projectId: account.project.id, contactId: null, name: 'beside' }])
      // The other transaction stays open throughout.
      await vi.waitFor(() => expect(delivered).toEqual(['beside']), eventually)
    } finally {
      await elsewhere.end()
      unsubscribe()
      await isolated.close()
    }
  })
})

describe('event ids', () => {
  /** The Unix milliseconds in a time-ordered id's first 48 bits; a random id's would be anywhere in 8,900 years. */
  const timeOf = (id: string) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)

  it('every writer of events gives them time-ordered ids: the bus, the contact upserts and segment membership', async () => {
    const account = await createAccount(server)
    const email = uniqueEmail()
    const v1Track = (payload: object) =>
      server.app.inject({ method: 'POST', url: '/v1/track', headers: bearer(account.publicKey), payload })
    expect((await v1Track({ email, event: 'first', data: { plan: 'pro' } })).statusCode).toBe(200)
    // An explicit `subscribed` takes the single upsert, whose flip event is made in SQL.
    expect((await v1Track({ email, event: 'second', subscribed: false })).statusCode).toBe(200)
    await publish(server, [{ projectId: account.project.id, contactId: null, name: 'published' }])
    const segment = await createSegment(server, account, {
      name: 'Pro',
      condition: dataEquals('plan', 'pro'),
      trackMembership: true,
    })
    expect((await call(account, 'POST', `/segments/${segment.id}/compute`)).statusCode).toBe(200)

    const rows = await server.ctx.db.execute<{ id: string; name: string; created_at: string }>(sql`
      SELECT id, name, created_at FROM events WHERE project_id = ${account.project.id}`)
    expect(rows.rows.map((row) => row.name).sort()).toEqual(
      ['contact.unsubscribed', 'first', 'published', 'second', 'segment.pro.entry'].sort(),
    )
    for (const row of rows.rows) {
      expect(Math.abs(timeOf(row.id) - new Date(row.created_at).getTime()), row.name).toBeLessThan(60_000)
    }
  })
})

describe('events API accepts', () => {
  it('lists recent events newest first with cursor pages, per contact, names and stats', async () => {
    const account = await createAccount(server)
    const email = uniqueEmail()
    const first = await track(account, email, 'signup')
    const second = await track(account, email, 'login')
    const third = await track(account, uniqueEmail(), 'login')

    const page = await call(account, 'GET', '/events?limit=2')
    expect(page.json()).toMatchObject({ hasMore: true, total: 3 })
    expect(page.json().data.map((event: { id: string }) => event.id)).toEqual([third.event, second.event])
    const next = await call(account, 'GET', `/events?limit=2&cursor=${page.json().cursor}`)
    expect(next.json()).toMatchObject({ hasMore: false, total: 0, cursor: '' })
    expect(next.json().data).toEqual([
      { id: first.event, name: 'signup', contactId: first.contact, email, data: {}, createdAt: first.timestamp },
    ])

    const ofContact = await call(account, 'GET', `/events/contact/${first.contact}`)
    expect(ofContact.json().data.map((event: { name: string }) => event.name)).toEqual(['login', 'signup'])
    const filtered = await call(account, 'GET', '/events?name=login')
    expect(filtered.json().total).toBe(2)

    const names = await call(account, 'GET', '/events/names')
    expect(names.json()).toEqual({
      data: [
        { name: 'login', count: 2, lastTrackedAt: expect.any(String), reserved: false },
        { name: 'signup', count: 1, lastTrackedAt: first.timestamp, reserved: false },
      ],
    })
    const stats = await call(account, 'GET', '/events/stats')
    expect(stats.json()).toEqual({
      total: 3,
      last24Hours: 3,
      last7Days: 3,
      last30Days: 3,
      uniqueContacts: 2,
      topEvents: [
        { name: 'login', count: 2 },
        { name: 'signup', count: 1 },
      ],
    })
  })

  it('reports usage and deletes every event of a name', async () => {
    const account = await createAccount(server)
    await track(account, uniqueEmail(), 'old-event')
    await track(account, uniqueEmail(), 'old-event')
    const usage = await call(account, 'GET', '/events/old-event/usage')
    expect(usage.json()).toEqual({ event: 'old-event', segments: [], campaigns: [], workflows: [] })
    const deleted = await call(account, 'DELETE', '/events/old-event')
    expect(deleted.json()).toEqual({ event: 'old-event', deleted: 2 })
    expect((await call(account, 'GET', '/events')).json().total).toBe(0)
  })
})

describe('events API rejects', () => {
  it('deleting a reserved name (422 reserved_event) or an unknown one (404), deleting nothing', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    await call(account, 'PATCH', `/contacts/${contact.id}`, { subscribed: false })
    const reserved = await call(account, 'DELETE', '/events/contact.unsubscribed')
    expect(reserved.statusCode).toBe(422)
    expect(reserved.json().error.errors).toEqual([
      { field: 'event', code: 'reserved_event', message: expect.any(String) },
    ])
    expect((await call(account, 'DELETE', '/events/never-tracked')).statusCode).toBe(404)
    expect((await call(account, 'GET', '/events')).json().total).toBe(1)
  })

  it('a reserved name on /events/track, a bad contact id and a bad cursor', async () => {
    const account = await createAccount(server)
    const reserved = await call(account, 'POST', '/events/track', { email: uniqueEmail(), event: 'email.click' })
    expect(reserved.statusCode).toBe(422)
    expect((await call(account, 'GET', '/events/contact/nope')).statusCode).toBe(422)
    expect((await call(account, 'GET', '/events?cursor=nope')).statusCode).toBe(400)
  })
})

describe('events API scoping', () => {
  itRequiresTheSecretKey(
    () => server,
    [
      ['POST', '/events/track', { email: 'x@example.com', event: 'e' }],
      ['GET', '/events'],
      ['GET', '/events/stats'],
      ['GET', '/events/names'],
      ['GET', '/events/contact/00000000-0000-4000-8000-000000000000'],
      ['GET', '/events/x/usage'],
      ['DELETE', '/events/x'],
    ],
  )

  it("another project's events are invisible and cannot be deleted", async () => {
    const [owner, other] = [await createAccount(server), await createAccount(server)]
    const tracked = await track(owner, uniqueEmail(), 'private')
    expect((await call(other, 'GET', `/events/contact/${tracked.contact}`)).statusCode).toBe(404)
    expect((await call(other, 'GET', '/events')).json()).toMatchObject({ data: [], total: 0 })
    expect((await call(other, 'GET', '/events/names')).json()).toEqual({ data: [] })
    expect((await call(other, 'GET', '/events/stats')).json()).toMatchObject({ total: 0 })
    expect((await call(other, 'DELETE', '/events/private')).statusCode).toBe(404)
    expect((await call(owner, 'GET', '/events')).json().total).toBe(1)
  })
})
