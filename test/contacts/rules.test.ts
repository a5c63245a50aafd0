import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { setContactSubscription, upsertContact } from '../../src/modules/contacts/service.js'
import {
  type Account,
  bearer,
  type ContactJson,
  createAccount,
  createContact,
  uniqueEmail,
} from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

async function track(account: Account, payload: Record<string, unknown>) {
  const response = await server.app.inject({
    method: 'POST',
    url: '/v1/track',
    headers: bearer(account.publicKey),
    payload: { event: 'rule-check', ...payload },
  })
  expect(response.statusCode).toBe(200)
  return response.json().data as { contact: string; event: string }
}

async function getContact(account: Account, id: string): Promise<ContactJson> {
  const response = await server.app.inject({
    method: 'GET',
    url: `/contacts/${id}`,
    headers: bearer(account.secretKey),
  })
  return response.json()
}

async function patch(account: Account, id: string, payload: Record<string, unknown>) {
  return server.app.inject({ method: 'PATCH', url: `/contacts/${id}`, headers: bearer(account.secretKey), payload })
}

async function subscriptionEvents(account: Account) {
  const result = await server.ctx.db.execute<{ name: string; contact_id: string; data: Record<string, unknown> }>(sql`
    SELECT name, contact_id, data FROM events
    WHERE project_id = ${account.project.id} AND name LIKE 'contact.%' ORDER BY created_at, id`)
  return result.rows
}

/** What /v1/send will do per recipient: new contacts unsubscribed unless told otherwise. */
async function sendUpsert(account: Account, email: string, subscribed?: boolean) {
  return server.ctx.db.transaction((tx) =>
    upsertContact(tx, account.project.id, { email, subscribed }, { subscribedIfNew: false }),
  )
}

describe('data rules on contact writes', () => {
  it('stores primitives and plain objects, deletes on null, ignores "", drops reserved keys', async () => {
    const account = await createAccount(server)
    const email = uniqueEmail()
    const { contact } = await track(account, {
      email,
      data: { name: 'Ada', age: 36, vip: true, address: { city: 'Paris' }, gone: 'soon', keep: 'me' },
    })
    const second = await track(account, {
      email,
      data: {
        gone: null,
        keep: '',
        id: 'x',
        email: 'x@example.com',
        svc_id: 'x',
        svc_email: 'x',
        unsubscribeUrl: 'x',
        subscribeUrl: 'x',
        manageUrl: 'x',
      },
    })
    expect((await getContact(account, contact)).data).toEqual({
      name: 'Ada',
      age: 36,
      vip: true,
      address: { city: 'Paris' },
      keep: 'me',
    })
    // The event carries the data as passed, reserved keys aside.
    const event = await server.ctx.db.execute(sql`SELECT data FROM events WHERE id = ${second.event}`)
    expect(event.rows[0]).toEqual({ data: { gone: null, keep: '' } })
  })

  it('uses {value, persistent: false} for the request only: in the event, not on the contact', async () => {
    const account = await createAccount(server)
    const { contact, event } = await track(account, {
      email: uniqueEmail(),
      data: { code: { value: '1234', persistent: false }, plan: { value: 'pro', persistent: true } },
    })
    expect((await getContact(account, contact)).data).toEqual({ plan: 'pro' })
    const stored = await server.ctx.db.execute(sql`SELECT data FROM events WHERE id = ${event}`)
    expect(stored.rows[0]).toEqual({ data: { code: '1234', plan: 'pro' } })
    const result = await server.ctx.db.transaction((tx) =>
      upsertContact(
        tx,
        account.project.id,
        { email: uniqueEmail(), data: { otp: { value: '42', persistent: false }, name: 'B' } },
        { subscribedIfNew: false },
      ),
    )
    expect(result.contact.data).toEqual({ name: 'B' })
    expect(result.requestData).toEqual({ name: 'B', otp: '42' })
  })

  it('applies the same rules on POST and PATCH /contacts', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account, { data: { a: 1, b: 2, id: 'dropped', c: '' } })
    expect(contact.data).toEqual({ a: 1, b: 2 })
    const patched = await patch(account, contact.id, { data: { a: null, b: '', manageUrl: 'x', d: [1, 2] } })
    expect(patched.json().data).toEqual({ b: 2, d: [1, 2] })
  })
})

describe('subscription table', () => {
  it('send, new contact, subscribed omitted: unsubscribed; existing, omitted: unchanged', async () => {
    const account = await createAccount(server)
    const email = uniqueEmail()
    const created = await sendUpsert(account, email)
    expect(created).toMatchObject({ isNew: true, subscriptionChanged: false, contact: { subscribed: false } })
    const subscribed = await createContact(server, account)
    const again = await sendUpsert(account, subscribed.email)
    expect(again).toMatchObject({ isNew: false, subscriptionChanged: false, contact: { subscribed: true } })
    expect(await subscriptionEvents(account)).toEqual([])
  })

  it('send with an explicit subscribed that differs: set, with its event; the same value: no event', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    expect((await sendUpsert(account, contact.email, true)).subscriptionChanged).toBe(false)
    const flipped = await sendUpsert(account, contact.email, false)
    expect(flipped).toMatchObject({ subscriptionChanged: true, contact: { subscribed: false } })
    expect(await subscriptionEvents(account)).toEqual([
      { name: 'contact.unsubscribed', contact_id: contact.id, data: {} },
    ])
  })

  it('track, new contact: subscribed; existing, omitted: unchanged; subscribed false: never resubscribed', async () => {
    const account = await createAccount(server)
    const { contact } = await track(account, { email: uniqueEmail() })
    expect((await getContact(account, contact)).subscribed).toBe(true)

    const unsubscribed = await createContact(server, account, { subscribed: false })
    await track(account, { email: unsubscribed.email })
    expect((await getContact(account, unsubscribed.id)).subscribed).toBe(false)
    await track(account, { email: unsubscribed.email, subscribed: false })
    expect((await getContact(account, unsubscribed.id)).subscribed).toBe(false)

    const fresh = await track(account, { email: uniqueEmail(), subscribed: false })
    expect((await getContact(account, fresh.contact)).subscribed).toBe(false)
    await track(account, { email: (await getContact(account, contact)).email, subscribed: false })
    expect(await subscriptionEvents(account)).toEqual([{ name: 'contact.unsubscribed', contact_id: contact, data: {} }])
  })

  it('PATCH flipping subscribed emits the event; the same value emits none', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    await patch(account, contact.id, { subscribed: true })
    await patch(account, contact.id, { subscribed: false })
    await patch(account, contact.id, { subscribed: true })
    expect((await subscriptionEvents(account)).map((event) => event.name)).toEqual([
      'contact.unsubscribed',
      'contact.subscribed',
    ])
  })

  it('a permanent bounce or complaint unsubscribes with {reason} on the event', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    await server.ctx.db.transaction((tx) =>
      setContactSubscription(tx, account.project.id, contact.id, false, { reason: 'bounce' }),
    )
    await server.ctx.db.transaction((tx) =>
      setContactSubscription(tx, account.project.id, contact.id, false, { reason: 'complaint' }),
    )
    expect(await subscriptionEvents(account)).toEqual([
      { name: 'contact.unsubscribed', contact_id: contact.id, data: { reason: 'bounce' } },
    ])
  })

  it('snooze: unsubscribed during the window, resubscribed by the scheduled job when it ends', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    const until = new Date(Date.now() + 3_600_000).toISOString()
    const snoozed = await patch(account, contact.id, { snoozedUntil: until })
    expect(snoozed.json()).toMatchObject({ subscribed: false, snoozedUntil: until })
    // Tracking without `subscribed` during the window leaves the snooze alone.
    await track(account, { email: contact.email })
    expect(await getContact(account, contact.id)).toMatchObject({ subscribed: false, snoozedUntil: until })

    await server.ctx.db.execute(
      sql`UPDATE contacts SET snoozed_until = now() - interval '1 second' WHERE id = ${contact.id}`,
    )
    await server.ctx.boss.send('contacts-snooze-end', {})
    await vi.waitFor(async () => expect((await getContact(account, contact.id)).subscribed).toBe(true), {
      timeout: 15_000,
      interval: 100,
    })
    expect(await getContact(account, contact.id)).toMatchObject({ subscribed: true, snoozedUntil: null })
    expect((await subscriptionEvents(account)).map((event) => event.name)).toEqual([
      'contact.unsubscribed',
      'contact.subscribed',
    ])
  })

  it('snooze rejects a past time, a combination with subscribed, and an unsubscribed contact', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    const past = await patch(account, contact.id, { snoozedUntil: new Date(Date.now() - 1000).toISOString() })
    expect(past.statusCode).toBe(422)
    const future = new Date(Date.now() + 60_000).toISOString()
    const both = await patch(account, contact.id, { snoozedUntil: future, subscribed: true })
    expect(both.statusCode).toBe(422)
    const unsubscribed = await createContact(server, account, { subscribed: false })
    const refused = await patch(account, unsubscribed.id, { snoozedUntil: future })
    expect(refused.statusCode).toBe(409)
    expect(await getContact(account, unsubscribed.id)).toEqual(unsubscribed)
    expect(await getContact(account, contact.id)).toEqual(contact)
  })

  it('ending a snooze early with snoozedUntil null resubscribes', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    await patch(account, contact.id, { snoozedUntil: new Date(Date.now() + 60_000).toISOString() })
    const ended = await patch(account, contact.id, { snoozedUntil: null })
    expect(ended.json()).toMatchObject({ subscribed: true, snoozedUntil: null })
    await patch(account, contact.id, { snoozedUntil: new Date(Date.now() + 60_000).toISOString() })
    const left = await patch(account, contact.id, { snoozedUntil: null, subscribed: false })
    expect(left.json()).toMatchObject({ subscribed: false, snoozedUntil: null })
  })
})
