import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enqueueEmails } from '../../src/modules/delivery/service.js'
import { testEmail } from '../helpers/emails.js'
import { type Account, bearer, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { executionsWhen, insertWorkflow } from '../workflows/engine/fixtures.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

/** `POST /events/track` as Plunk's MCP sends it with only a secret key (its default): JSON, `Bearer sk_…`. */
function trackAsPlunk(account: Account, body: Record<string, unknown>) {
  return server.app.inject({
    method: 'POST',
    url: '/events/track',
    headers: { 'content-type': 'application/json', ...bearer(account.secretKey) },
    payload: JSON.stringify(body),
  })
}

async function eventsOf(projectId: string) {
  const result = await server.ctx.db.execute<{ name: string; contact_id: string; data: Record<string, unknown> }>(
    sql`SELECT name, contact_id, data FROM events WHERE project_id = ${projectId} AND name NOT LIKE 'contact.%'
      ORDER BY created_at, id`,
  )
  return result.rows
}

/** An email of the project, as /v1/send leaves it: its id is what Plunk's `emailId` names. */
async function emailOf(account: Account): Promise<string> {
  const [id] = await server.ctx.db.transaction((tx) => enqueueEmails(tx, account.project.id, [testEmail()]))
  if (!id) throw new Error('no email')
  return id
}

describe("POST /events/track accepts Plunk's {name, contactId, emailId?, data?}", () => {
  it('stores the event /v1/track stores for that contact, and the workflow it triggers runs', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account, { data: { plan: 'free' } })
    const workflow = await insertWorkflow(server, account.project.id, {
      eventName: 'order.placed',
      steps: { done: { type: 'EXIT', config: { reason: 'ordered' } } },
      edges: [['trigger', 'done']],
    })

    const response = await trackAsPlunk(account, {
      name: 'order.placed',
      contactId: contact.id,
      data: { total: 42, coupon: { value: 'X1', persistent: false } },
    })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({
      success: true,
      data: { contact: contact.id, event: expect.any(String), timestamp: expect.any(String) },
    })
    const viaV1 = await server.app.inject({
      method: 'POST',
      url: '/v1/track',
      headers: bearer(account.publicKey),
      payload: {
        email: contact.email,
        event: 'order.placed',
        data: { total: 42, coupon: { value: 'X1', persistent: false } },
      },
    })
    expect(viaV1.statusCode).toBe(200)
    const [plunk, v1] = await eventsOf(account.project.id)
    expect(plunk).toEqual({ name: 'order.placed', contact_id: contact.id, data: { total: 42, coupon: 'X1' } })
    expect(plunk).toEqual(v1)

    const [run] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'EXITED')
    expect(run).toMatchObject({ contactId: contact.id, triggerKind: 'EVENT', context: { total: 42, coupon: 'X1' } })
  })

  it('records the email id it names with the event', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    const emailId = await emailOf(account)
    const response = await trackAsPlunk(account, { name: 'replied', contactId: contact.id, emailId })
    expect(response.statusCode, response.body).toBe(200)
    expect(await eventsOf(account.project.id)).toEqual([{ name: 'replied', contact_id: contact.id, data: { emailId } }])
  })
})

describe('POST /events/track rejects, storing nothing', () => {
  it("another project's contact or email is 404", async () => {
    const [owner, other] = [await createAccount(server), await createAccount(server)]
    const theirs = await createContact(server, other)
    const theirEmail = await emailOf(other)
    const mine = await createContact(server, owner)

    const contact = await trackAsPlunk(owner, { name: 'x', contactId: theirs.id })
    expect(contact.statusCode).toBe(404)
    expect(contact.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND', message: 'Contact not found' } })
    const email = await trackAsPlunk(owner, { name: 'x', contactId: mine.id, emailId: theirEmail })
    expect(email.statusCode).toBe(404)
    expect(email.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND', message: 'Email not found' } })
    expect(await eventsOf(owner.project.id)).toEqual([])
    expect(await eventsOf(other.project.id)).toEqual([])
  })

  it.each([
    ['an empty body', {}, ['email', 'event']],
    ["Plunk's shape without a contact", { name: 'x' }, ['contactId']],
    ["Plunk's shape with a bad id and no name", { contactId: 'nope', emailId: 7 }, ['name', 'contactId', 'emailId']],
    ['a mix of both', { name: 'x', email: uniqueEmail() }, ['event']],
  ])('%s is a 422 naming the fields', async (_case, body, fields) => {
    const account = await createAccount(server)
    const response = await trackAsPlunk(account, body)
    expect(response.statusCode, response.body).toBe(422)
    expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Request validation failed' })
    expect(response.json().error.errors.map((error: { field: string }) => error.field)).toEqual(fields)
    expect(await eventsOf(account.project.id)).toEqual([])
  })

  it('a reserved name is a 422 on `name`', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    const response = await trackAsPlunk(account, { name: 'email.open', contactId: contact.id })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors).toEqual([
      {
        field: 'name',
        code: 'reserved_event',
        message: '"email.open" is reserved for events the service emits itself',
      },
    ])
    expect(await eventsOf(account.project.id)).toEqual([])
  })

  it('a public key cannot track this way', async () => {
    const account = await createAccount(server)
    const contact = await createContact(server, account)
    const response = await server.app.inject({
      method: 'POST',
      url: '/events/track',
      headers: { 'content-type': 'application/json', ...bearer(account.publicKey) },
      payload: JSON.stringify({ name: 'x', contactId: contact.id }),
    })
    expect(response.statusCode).toBe(401)
    expect(await eventsOf(account.project.id)).toEqual([])
  })
})
