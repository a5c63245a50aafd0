import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { contacts } from '../../../src/db/schema/index.js'
import { eventually } from '../../helpers/emails.js'
import { bearer, callAs, createAccount, createContact } from '../../helpers/factories.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { addStep, connect, createWorkflow, patchWorkflow } from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.close())

describe('a workflow built through the definition API', () => {
  it('runs on its trigger event: the CONDITION takes the branch the contact data says', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner, { eventName: 'upgraded' })
    const check = await addStep(server, owner, workflow.id, {
      type: 'CONDITION',
      name: 'Pro?',
      config: { field: 'data.plan', operator: 'equals', value: 'pro' },
      autoConnect: true,
    })
    const pro = await addStep(server, owner, workflow.id, {
      type: 'UPDATE_CONTACT',
      name: 'Mark pro',
      config: { updates: { tier: 'gold' } },
    })
    const other = await addStep(server, owner, workflow.id, {
      type: 'UPDATE_CONTACT',
      name: 'Mark other',
      config: { updates: { tier: 'basic' } },
    })
    await connect(server, owner, workflow.id, check.id, pro.id, { condition: { branch: 'yes' } })
    await connect(server, owner, workflow.id, check.id, other.id, { condition: { branch: 'no' } })
    expect((await patchWorkflow(server, owner, workflow.id, { enabled: true })).statusCode).toBe(200)

    const proContact = await createContact(server, owner, { data: { plan: 'pro' } })
    const freeContact = await createContact(server, owner, { data: { plan: 'free' } })
    for (const contact of [proContact, freeContact]) {
      const tracked = await server.app.inject({
        method: 'POST',
        url: '/v1/track',
        headers: bearer(owner.publicKey),
        payload: { email: contact.email, event: 'upgraded' },
      })
      expect(tracked.statusCode).toBe(200)
    }
    const tierOf = async (id: string) => {
      const [row] = await server.ctx.db.select({ data: contacts.data }).from(contacts).where(eq(contacts.id, id))
      return row?.data.tier
    }
    await vi.waitFor(async () => {
      expect(await tierOf(proContact.id)).toBe('gold')
      expect(await tierOf(freeContact.id)).toBe('basic')
    }, eventually)
    const executions = await callAs(server, owner)('GET', `/workflows/${workflow.id}/executions?status=COMPLETED`)
    expect(executions.json().total).toBe(2)
  })
})
