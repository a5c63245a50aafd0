import { eq, sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { contacts, workflowExecutions, workflowStepExecutions } from '../../../src/db/schema/index.js'
import { readSubscriptionToken } from '../../../src/mail/outbound/subscription-links.js'
import { type ServerWithDns, startServerWithDns } from '../../helpers/domains.js'
import { type Account, callAs, createAccount, createContact } from '../../helpers/factories.js'
import { type HttpReceiver, startHttpReceiver } from '../../helpers/http-receiver.js'
import type { TestServer } from '../../helpers/server.js'
import { executionsWhen, insertWorkflow, settle, stepsOf, track } from './fixtures.js'

const dataOf = async (server: TestServer, contactId: string) => {
  const [row] = await server.ctx.db.select({ data: contacts.data }).from(contacts).where(eq(contacts.id, contactId))
  return row?.data ?? {}
}

/** TRIGGER → WEBHOOK `hook` (the given config) → UPDATE_CONTACT `sync`, on `eventName`. */
function hookFlow(server: TestServer, account: Account, eventName: string, hook: Record<string, unknown>) {
  return insertWorkflow(server, account.project.id, {
    eventName,
    steps: {
      hook: { type: 'WEBHOOK', config: hook },
      sync: { type: 'UPDATE_CONTACT', config: { updates: { synced: true } } },
    },
    edges: [
      ['trigger', 'hook'],
      ['hook', 'sync'],
    ],
  })
}

describe('the WEBHOOK step, end to end', () => {
  let receiver: HttpReceiver
  let env: ServerWithDns
  let account: Account

  beforeAll(async () => {
    receiver = await startHttpReceiver()
    // testConfig allows private addresses (WEBHOOK_ALLOW_PRIVATE), so the loopback receiver can be reached.
    env = await startServerWithDns()
    account = await createAccount(env.server)
  })
  afterEach(() => receiver.reset())
  afterAll(async () => {
    await env.close()
    await receiver.close()
  })

  it('POSTs the default payload as JSON and goes on when the endpoint answers 2xx', async () => {
    const { server } = env
    const workflow = await hookFlow(server, account, 'order-paid', { url: `${receiver.url}/hooks/{{id}}` })
    const contact = await createContact(server, account, { data: { plan: 'pro' } })
    await track(server, account, contact.email, 'order-paid', { orderId: 'o-1', total: 42 })

    const [done] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'COMPLETED')
    const [received] = receiver.requests
    expect(receiver.requests).toHaveLength(1)
    expect(received?.method).toBe('POST')
    expect(received?.url).toBe(`/hooks/${contact.id}`)
    expect(received?.headers['content-type']).toBe('application/json')
    // The contact as the step saw it: before `sync` ran, with the tracked data merged in as /v1/track does.
    const { synced, ...dataBeforeSync } = await dataOf(server, contact.id)
    expect(synced).toBe(true)
    expect(received?.json).toEqual({
      contact: { email: contact.email, subscribed: true, data: dataBeforeSync },
      workflow: { id: workflow.id, name: 'On order-paid' },
      execution: { id: done?.id, startedAt: done?.startedAt.toISOString() },
      event: { orderId: 'o-1', total: 42 },
    })
    expect(dataBeforeSync).toMatchObject({ plan: 'pro' })

    const steps = await stepsOf(server, done?.id ?? '')
    expect(steps.map((step) => `${step.name}:${step.status}`)).toEqual([
      'trigger:COMPLETED',
      'hook:COMPLETED',
      'sync:COMPLETED',
    ])
    expect(steps[1]?.output).toEqual({
      url: `${receiver.url}/hooks/${contact.id}`,
      method: 'POST',
      finalUrl: `${receiver.url}/hooks/${contact.id}`,
      statusCode: 200,
      success: true,
      response: '{"ok":true}',
    })
  })

  it('sends a custom body, method and headers with every placeholder filled in', async () => {
    const { server } = env
    const workflow = await hookFlow(server, account, 'order-shipped', {
      url: `${receiver.url}/orders/{{event.order.id}}?who={{email}}`,
      method: 'PUT',
      headers: { 'X-Order': '{{event.order.id}}', 'X-Plan': '{{data.plan}}', 'X-Unsubscribe': '{{unsubscribeUrl}}' },
      body: {
        order: '{{event.order.id}}',
        total: '{{event.total}}',
        line: 'Order {{event.order.id}} for {{email}} on {{data.plan}}',
        unsubscribe: '{{unsubscribeUrl}}',
        missing: '{{event.nothing}}',
        fixed: [1, true, null],
      },
    })
    const contact = await createContact(server, account, { email: 'ada+ship@example.com', data: { plan: 'team' } })
    await track(server, account, contact.email, 'order-shipped', { order: { id: 'A/7' }, total: 99.5 })

    const [done] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'COMPLETED')
    const [received] = await receiver.waitForRequests(1)
    expect(received?.method).toBe('PUT')
    // A value is encoded inside its slot of the URL: `A/7` adds no path segment.
    expect(received?.url).toBe('/orders/A%2F7?who=ada%2Bship%40example.com')
    expect(received?.headers['content-type']).toBe('application/json')
    expect(received?.headers['x-order']).toBe('A/7')
    expect(received?.headers['x-plan']).toBe('team')
    const unsubscribeUrl = String(received?.headers['x-unsubscribe'])
    expect(received?.json).toEqual({
      order: 'A/7',
      total: 99.5,
      line: 'Order A/7 for ada+ship@example.com on team',
      unsubscribe: unsubscribeUrl,
      missing: '',
      fixed: [1, true, null],
    })
    // A working one-click link for this contact of this project.
    const prefix = `${server.config.publicUrl}/unsubscribe/`
    expect(unsubscribeUrl.startsWith(prefix)).toBe(true)
    expect(readSubscriptionToken(server.config.secret, 'unsubscribe', unsubscribeUrl.slice(prefix.length))).toEqual({
      projectId: account.project.id,
      contactId: contact.id,
    })
    const steps = await stepsOf(server, done?.id ?? '')
    expect(steps[1]?.output).toMatchObject({ method: 'PUT', statusCode: 200, success: true })
  })

  it("fills a manual start's context keys; `event` is empty for an execution no event started", async () => {
    const { server } = env
    const workflow = await hookFlow(server, account, 'never-tracked', {
      url: `${receiver.url}/coupon/{{coupon}}`,
      body: { coupon: '{{coupon}}', event: '{{event.orderId}}', plan: '{{plan}}' },
    })
    const contact = await createContact(server, account, { data: { plan: 'free' } })
    const response = await callAs(server, account)('POST', `/workflows/${workflow.id}/executions`, {
      contactId: contact.id,
      context: { coupon: 'SPRING-10' },
    })
    expect(response.statusCode).toBe(201)

    await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'COMPLETED')
    const [received] = await receiver.waitForRequests(1)
    expect(received?.url).toBe('/coupon/SPRING-10')
    expect(received?.json).toEqual({ coupon: 'SPRING-10', event: '', plan: 'free' })
  })

  it('fails the step and the execution on a non-2xx answer, with the status and the first bytes of the answer', async () => {
    const { server } = env
    receiver.respondWith(() => ({
      status: 500,
      headers: { 'content-type': 'text/plain' },
      body: `database on fire: ${'x'.repeat(5_000)}`,
    }))
    const workflow = await hookFlow(server, account, 'order-refunded', { url: `${receiver.url}/refunds` })
    const contact = await createContact(server, account)
    await track(server, account, contact.email, 'order-refunded')

    const [failed] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'FAILED')
    expect(receiver.requests).toHaveLength(1)
    const steps = await stepsOf(server, failed?.id ?? '')
    expect(steps.map((step) => `${step.name}:${step.status}`)).toEqual(['trigger:COMPLETED', 'hook:FAILED'])
    const hook = steps[1]
    expect(hook?.error).toMatch(/^The endpoint answered 500: database on fire: x+$/)
    expect(hook?.error?.length).toBeLessThan(300)
    expect(hook?.output).toMatchObject({
      url: `${receiver.url}/refunds`,
      method: 'POST',
      statusCode: 500,
      success: false,
    })
    // The preview is bounded: the first 1,000 characters of a 5 KB answer.
    expect(hook?.output?.response).toBe(`database on fire: ${'x'.repeat(1_000 - 'database on fire: '.length)}`)
    expect(failed).toMatchObject({ exitReason: hook?.error, currentStepId: workflow.steps.hook, dueAt: null })
    await settle()
    expect(await dataOf(server, contact.id)).not.toHaveProperty('synced')
    expect(receiver.requests).toHaveLength(1)
  })

  // The engine uses the spec's 10 s; the module's own tests cover shorter limits. This one waits it out once.
  it('fails the step when the endpoint does not answer within 10 seconds', { timeout: 30_000 }, async () => {
    const { server } = env
    receiver.respondWith(() => ({ status: 200, body: 'too late', delayMs: 25_000 }))
    const workflow = await hookFlow(server, account, 'slow-partner', { url: `${receiver.url}/slow` })
    const contact = await createContact(server, account)
    const trackedAt = Date.now()
    await track(server, account, contact.email, 'slow-partner')

    const [failed] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'FAILED', 20_000)
    expect(Date.now() - trackedAt).toBeGreaterThanOrEqual(10_000)
    const steps = await stepsOf(server, failed?.id ?? '')
    expect(steps.map((step) => `${step.name}:${step.status}`)).toEqual(['trigger:COMPLETED', 'hook:FAILED'])
    expect(steps[1]?.error).toBe(`webhook to ${new URL(receiver.url).host} got no answer within 10000 ms`)
    expect(receiver.requests).toHaveLength(1)
    expect(await dataOf(server, contact.id)).not.toHaveProperty('synced')
  })

  it('never repeats a call a stopped worker left RUNNING: the step and the execution fail, nothing is sent', async () => {
    const { server } = env
    const workflow = await hookFlow(server, account, 'order-synced', { url: `${receiver.url}/sync` })
    const contact = await createContact(server, account)
    // What a worker killed mid-request leaves: the call recorded RUNNING and committed, the lease run out.
    const executionId = await server.ctx.db.transaction(async (tx) => {
      const [execution] = await tx
        .insert(workflowExecutions)
        .values({
          projectId: account.project.id,
          workflowId: workflow.id,
          contactId: contact.id,
          status: 'RUNNING',
          triggerKind: 'EVENT',
          currentStepId: workflow.steps.hook,
          context: { orderId: 'o-9' },
          dueAt: new Date(Date.now() - 61_000),
          leasedUntil: new Date(Date.now() - 1_000),
        })
        .returning({ id: workflowExecutions.id })
      if (!execution) throw new Error('no execution')
      const stepExecution = (name: 'trigger' | 'hook', ago: number) => ({
        executionId: execution.id,
        stepId: workflow.steps[name],
        stepType: name === 'trigger' ? ('TRIGGER' as const) : ('WEBHOOK' as const),
        stepName: name,
        startedAt: new Date(Date.now() - ago),
        createdAt: new Date(Date.now() - ago),
      })
      await tx.insert(workflowStepExecutions).values([
        { ...stepExecution('trigger', 62_000), status: 'COMPLETED', completedAt: new Date(Date.now() - 62_000) },
        {
          ...stepExecution('hook', 61_000),
          status: 'RUNNING',
          output: { url: `${receiver.url}/sync`, method: 'POST' },
        },
      ])
      return execution.id
    })

    const [failed] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'FAILED')
    expect(failed).toMatchObject({ id: executionId, exitReason: 'The worker stopped during a webhook request' })
    const steps = await stepsOf(server, executionId)
    expect(steps.map((step) => `${step.name}:${step.status}`)).toEqual(['trigger:COMPLETED', 'hook:FAILED'])
    expect(steps[1]?.error).toBe('The worker stopped during the request; webhooks are not retried')
    await settle()
    expect(receiver.requests).toHaveLength(0)
    expect(await dataOf(server, contact.id)).not.toHaveProperty('synced')
  })

  it('drops the answer of a call whose lease ran out meanwhile, and never makes the call a second time', async () => {
    const { server } = env
    receiver.respondWith(() => ({ status: 200, body: 'late but fine', delayMs: 1_500 }))
    const workflow = await hookFlow(server, account, 'order-archived', { url: `${receiver.url}/archive` })
    const contact = await createContact(server, account)
    await track(server, account, contact.email, 'order-archived')

    await receiver.waitForRequests(1)
    const [inFlight] = await executionsWhen(server, workflow.id, () => true)
    expect(await stepsOf(server, inFlight?.id ?? '')).toMatchObject([
      { name: 'trigger', status: 'COMPLETED' },
      { name: 'hook', status: 'RUNNING', output: { url: `${receiver.url}/archive`, method: 'POST' } },
    ])
    // The worker stalls past its lease (a GC pause, a frozen VM): another claim may take the execution over.
    await server.ctx.db.execute(
      sql`UPDATE workflow_executions SET leased_until = now() - interval '1 second' WHERE id = ${inFlight?.id ?? ''}`,
    )

    const [failed] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'FAILED')
    const steps = await stepsOf(server, failed?.id ?? '')
    expect(steps.map((step) => `${step.name}:${step.status}`)).toEqual(['trigger:COMPLETED', 'hook:FAILED'])
    expect(steps[1]?.error).toMatch(/not retried/)
    await settle()
    expect(receiver.requests).toHaveLength(1)
    expect(await dataOf(server, contact.id)).not.toHaveProperty('synced')
  })

  it('cancelled while its request is in flight, the execution stays CANCELLED when the answer comes', async () => {
    const { server } = env
    receiver.respondWith(() => ({ status: 200, body: 'ok', delayMs: 1_500 }))
    const workflow = await hookFlow(server, account, 'order-cancelled', { url: `${receiver.url}/cancel` })
    const contact = await createContact(server, account)
    await track(server, account, contact.email, 'order-cancelled')
    await receiver.waitForRequests(1)
    const [inFlight] = await executionsWhen(server, workflow.id, () => true)

    const url = `/workflows/${workflow.id}/executions/${inFlight?.id}`
    const response = await callAs(server, account)('DELETE', url)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ status: 'CANCELLED', exitReason: 'Cancelled by user' })

    await settle(2_500)
    const [after] = await executionsWhen(server, workflow.id, () => true)
    expect(after).toMatchObject({ status: 'CANCELLED', exitReason: 'Cancelled by user' })
    const steps = await stepsOf(server, after?.id ?? '')
    expect(steps.map((step) => `${step.name}:${step.status}`)).toEqual(['trigger:COMPLETED', 'hook:SKIPPED'])
    expect(receiver.requests).toHaveLength(1)
    expect(await dataOf(server, contact.id)).not.toHaveProperty('synced')
  })
})

describe('the WEBHOOK step without WEBHOOK_ALLOW_PRIVATE', () => {
  let receiver: HttpReceiver
  let env: ServerWithDns
  let account: Account

  beforeAll(async () => {
    receiver = await startHttpReceiver()
    env = await startServerWithDns({ config: { webhookAllowPrivate: false } })
    account = await createAccount(env.server)
  })
  afterAll(async () => {
    await env.close()
    await receiver.close()
  })

  const port = () => new URL(receiver.url).port
  const cases: [label: string, url: () => string, error: string][] = [
    [
      'the loopback address itself',
      () => `${receiver.url}/hook`,
      'webhook host 127.0.0.1 is not a public address (loopback)',
    ],
    [
      'a DNS name that resolves to it',
      () => `http://hooks.partner.test:${port()}/hook`,
      'webhook host hooks.partner.test resolves to 127.0.0.1, not a public address (loopback)',
    ],
    [
      'localhost',
      () => `http://localhost:${port()}/hook`,
      'webhook host localhost resolves to 127.0.0.1, not a public address (loopback)',
    ],
  ]

  for (const [label, url, error] of cases) {
    it(`refuses ${label}: the step FAILED naming the address, the endpoint got nothing`, async () => {
      const { server, dns } = env
      dns.set('hooks.partner.test', 'A', ['127.0.0.1'])
      const eventName = `blocked-${label.replace(/\W+/g, '-')}`
      const workflow = await hookFlow(server, account, eventName, { url: url() })
      const contact = await createContact(server, account)
      await track(server, account, contact.email, eventName)

      const [failed] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'FAILED')
      const steps = await stepsOf(server, failed?.id ?? '')
      expect(steps.map((step) => `${step.name}:${step.status}`)).toEqual(['trigger:COMPLETED', 'hook:FAILED'])
      expect(steps[1]?.error).toBe(error)
      expect(failed?.exitReason).toBe(error)
      expect(steps[1]?.output).toEqual({ url: new URL(url()).href, method: 'POST' })
      await settle()
      expect(receiver.requests).toHaveLength(0)
      expect(await dataOf(server, contact.id)).not.toHaveProperty('synced')
    })
  }
})
