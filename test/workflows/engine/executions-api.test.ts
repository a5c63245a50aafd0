import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { workflowExecutions, workflows } from '../../../src/db/schema/index.js'
import { compactExecutionCounts, loadExecutionCounts } from '../../../src/modules/workflows/counts.js'
import { eventually } from '../../helpers/emails.js'
import { badQueryBody } from '../../helpers/errors.js'
import { type Account, type ContactJson, callAs, createAccount, createContact } from '../../helpers/factories.js'
import { waitOnLoops } from '../../helpers/loops.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import { executionsWhen, insertWorkflow, settle, track } from './fixtures.js'

type StepJson = { id: string; name: string; type: string }
type ExecutionJson = {
  id: string
  workflowId: string
  contactId: string
  status: string
  triggerKind: string
  currentStepId: string | null
  exitReason: string | null
  context: Record<string, unknown>
  dueAt: string | null
  waitingFor: string | null
  startedAt: string
  completedAt: string | null
  contact: { id: string; email: string }
  currentStep: StepJson | null
}
type StepExecutionJson = {
  stepId: string | null
  status: string
  output: Record<string, unknown> | null
  error: string | null
  executeAfter: string | null
  completedAt: string | null
  step: StepJson
}
type ExecutionDetailJson = ExecutionJson & {
  workflow: { id: string; name: string }
  stepExecutions: StepExecutionJson[]
}
type ExecutionPageJson = {
  executions: ExecutionJson[]
  total: number
  page: number
  pageSize: number
  totalPages: number
}

/** The spec's error body, by code and message. */
const refusal = (code: string, message: string | RegExp) => ({
  success: false,
  error: expect.objectContaining({
    code,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  }),
  timestamp: expect.any(String),
})

describe('workflow executions API', () => {
  let server: TestServer
  let account: Account
  let stranger: Account
  let api: ReturnType<typeof callAs>

  beforeAll(async () => {
    server = await startTestServer()
    account = await createAccount(server)
    stranger = await createAccount(server, 'Another project')
    api = callAs(server, account)
  })
  afterAll(() => server.close())

  const start = (workflowId: string, body: object) => api('POST', `/workflows/${workflowId}/executions`, body)
  const list = async (workflowId: string, query = '') => {
    const response = await api('GET', `/workflows/${workflowId}/executions${query}`)
    expect(response.statusCode).toBe(200)
    return response.json<ExecutionPageJson>()
  }
  /** GET of one execution, asked again after each run of a background loop until `done` holds for it. */
  const detailWhen = (workflowId: string, executionId: string, done: (detail: ExecutionDetailJson) => boolean) =>
    waitOnLoops(async () => {
      const response = await api('GET', `/workflows/${workflowId}/executions/${executionId}`)
      expect(response.statusCode).toBe(200)
      const detail = response.json<ExecutionDetailJson>()
      if (!done(detail)) throw new Error(`not yet: ${detail.status}`)
      return detail
    }, eventually.timeout)
  const contactData = async (contactId: string) => (await api('GET', `/contacts/${contactId}`)).json<ContactJson>().data
  const timeline = (detail: ExecutionDetailJson) => detail.stepExecutions.map((s) => `${s.step.name}:${s.status}`)

  describe('POST /workflows/:id/executions', () => {
    it('answers 201 with the bare execution, RUNNING at the TRIGGER; the worker then runs it to COMPLETED', async () => {
      const workflow = await insertWorkflow(server, account.project.id, {
        eventName: 'manual-note',
        steps: { note: { type: 'UPDATE_CONTACT', config: { updates: { noted: true } } } },
        edges: [['trigger', 'note']],
      })
      const contact = await createContact(server, account)
      const context = { source: 'support', ticket: { id: 7, tags: ['vip'] } }

      const response = await start(workflow.id, { contactId: contact.id, context })
      expect(response.statusCode).toBe(201)
      const started = response.json<ExecutionJson>()
      expect(started).toEqual({
        id: expect.any(String),
        workflowId: workflow.id,
        contactId: contact.id,
        status: 'RUNNING',
        triggerKind: 'MANUAL',
        currentStepId: workflow.steps.trigger,
        exitReason: null,
        context,
        dueAt: expect.any(String),
        waitingFor: null,
        startedAt: expect.any(String),
        completedAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      })

      const done = await detailWhen(workflow.id, started.id, (detail) => detail.status === 'COMPLETED')
      expect(done).toMatchObject({ currentStepId: null, currentStep: null, dueAt: null, context })
      expect(done.completedAt).not.toBeNull()
      expect(timeline(done)).toEqual(['trigger:COMPLETED', 'note:COMPLETED'])
      expect(await contactData(contact.id)).toEqual({ noted: true })

      // allowReentry false: once per contact, ever.
      const again = await start(workflow.id, { contactId: contact.id })
      expect(again.statusCode).toBe(409)
      expect(again.json()).toEqual(refusal('CONFLICT', /does not allow re-entry/))
      expect((await list(workflow.id)).total).toBe(1)
    })

    it('with allowReentry, refuses a second start while the first WAITs (409) and admits one once it is over', async () => {
      const workflow = await insertWorkflow(server, account.project.id, {
        eventName: 'manual-hold',
        allowReentry: true,
        steps: { hold: { type: 'WAIT_FOR_EVENT', config: { eventName: 'released' } } },
        edges: [['trigger', 'hold']],
      })
      const contact = await createContact(server, account)
      const first = (await start(workflow.id, { contactId: contact.id })).json<ExecutionJson>()
      const waiting = await detailWhen(workflow.id, first.id, (detail) => detail.status === 'WAITING')
      expect(waiting).toMatchObject({ waitingFor: 'released', dueAt: null, currentStep: { name: 'hold' } })

      const second = await start(workflow.id, { contactId: contact.id })
      expect(second.statusCode).toBe(409)
      expect(second.json()).toEqual(refusal('CONFLICT', /already active/))

      await track(server, account, contact.email, 'released')
      await detailWhen(workflow.id, first.id, (detail) => detail.status === 'COMPLETED')
      const third = await start(workflow.id, { contactId: contact.id })
      expect(third.statusCode).toBe(201)
      expect((await list(workflow.id)).total).toBe(2)
    })

    it('starts 10 executions of one workflow side by side (201 each); for one contact only one of 10 wins', async () => {
      const workflow = await insertWorkflow(server, account.project.id, {
        eventName: 'manual-burst',
        steps: { note: { type: 'UPDATE_CONTACT', config: { updates: { burst: true } } } },
        edges: [['trigger', 'note']],
      })
      const contacts = await Promise.all(Array.from({ length: 10 }, () => createContact(server, account)))
      const responses = await Promise.all(contacts.map((contact) => start(workflow.id, { contactId: contact.id })))
      expect(responses.map((response) => response.statusCode)).toEqual(contacts.map(() => 201))
      await executionsWhen(
        server,
        workflow.id,
        (rows) => rows.length === 10 && rows.every((row) => row.status === 'COMPLETED'),
      )

      for (const allowReentry of [false, true]) {
        const hold = await insertWorkflow(server, account.project.id, {
          eventName: `manual-race-${allowReentry}`,
          allowReentry,
          steps: { hold: { type: 'WAIT_FOR_EVENT', config: { eventName: 'never' } } },
          edges: [['trigger', 'hold']],
        })
        const contact = await createContact(server, account)
        const racing = await Promise.all(Array.from({ length: 10 }, () => start(hold.id, { contactId: contact.id })))
        const codes = racing.map((response) => response.statusCode).sort()
        expect(codes, `allowReentry ${allowReentry}`).toEqual([201, ...Array<number>(9).fill(409)])
        expect((await list(hold.id)).total).toBe(1)
      }
    })

    it('refuses bad starts with the right error and starts nothing', async () => {
      const workflow = await insertWorkflow(server, account.project.id, {
        eventName: 'manual-refusals',
        steps: { note: { type: 'UPDATE_CONTACT', config: { updates: { refused: false } } } },
        edges: [['trigger', 'note']],
      })
      const disabled = await insertWorkflow(server, account.project.id, {
        eventName: 'manual-disabled',
        enabled: false,
        steps: {},
        edges: [],
      })
      const contact = await createContact(server, account)
      const foreign = await createContact(server, stranger)

      for (const body of [{}, { context: { a: 1 } }, { contactId: '' }, { contactId: null }]) {
        const response = await start(workflow.id, body)
        expect(response.statusCode).toBe(400)
        expect(response.json()).toEqual({ error: 'Missing required field: contactId' })
      }

      const notUuid = await start(workflow.id, { contactId: 'not-a-uuid' })
      expect(notUuid.statusCode).toBe(422)
      expect(notUuid.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [expect.objectContaining({ field: 'contactId', code: 'invalid_string' })],
      })

      const contexts: unknown[] = [['a', 'b'], 'text', 42, { big: 'x'.repeat(70_000) }]
      for (const context of contexts) {
        const response = await start(workflow.id, { contactId: contact.id, context })
        expect(response.statusCode).toBe(422)
        expect(response.json().error).toMatchObject({
          code: 'VALIDATION_ERROR',
          errors: [expect.objectContaining({ field: 'context' })],
        })
      }

      const notEnabled = await start(disabled.id, { contactId: contact.id })
      expect(notEnabled.statusCode).toBe(400)
      expect(notEnabled.json()).toEqual(refusal('BAD_REQUEST', 'Workflow is not enabled'))

      for (const contactId of [foreign.id, randomUUID()]) {
        const response = await start(workflow.id, { contactId })
        expect(response.statusCode).toBe(404)
        expect(response.json()).toEqual(refusal('NOT_FOUND', 'Contact not found'))
      }
      const noWorkflow = await start(randomUUID(), { contactId: contact.id })
      expect(noWorkflow.statusCode).toBe(404)
      expect(noWorkflow.json()).toEqual(refusal('NOT_FOUND', 'Workflow not found'))

      expect((await list(workflow.id)).total).toBe(0)
      expect((await list(disabled.id)).total).toBe(0)
      // No refusal counted as the contact's one entry: a good start still goes through.
      expect((await start(workflow.id, { contactId: contact.id })).statusCode).toBe(201)
    })
  })

  describe('listing, reading and cancelling', () => {
    let workflow: Awaited<ReturnType<typeof insertWorkflow>>
    let contacts: ContactJson[]
    /** Started in this order: held (waits 10 minutes), passed (completes), held, held. */
    let started: ExecutionJson[]

    beforeAll(async () => {
      workflow = await insertWorkflow(server, account.project.id, {
        eventName: 'manual-list',
        steps: {
          check: { type: 'CONDITION', config: { field: 'event.hold', operator: 'equals', value: true } },
          wait: { type: 'DELAY', config: { amount: 10, unit: 'minutes' } },
        },
        edges: [
          ['trigger', 'check'],
          ['check', 'wait', { branch: 'yes' }],
        ],
      })
      contacts = []
      started = []
      for (const hold of [true, false, true, true]) {
        const contact = await createContact(server, account)
        const response = await start(workflow.id, { contactId: contact.id, context: { hold } })
        expect(response.statusCode).toBe(201)
        contacts.push(contact)
        started.push(response.json<ExecutionJson>())
      }
      await executionsWhen(
        server,
        workflow.id,
        (rows) =>
          rows.filter((row) => row.status === 'WAITING').length === 3 &&
          rows.filter((row) => row.status === 'COMPLETED').length === 1,
      )
    })

    const ids = (indexes: number[]) => indexes.map((index) => started[index]?.id)

    it('GET lists them newest first with their contact and current step', async () => {
      const page = await list(workflow.id)
      expect(page).toMatchObject({ total: 4, page: 1, pageSize: 20, totalPages: 1 })
      expect(page.executions.map((execution) => execution.id)).toEqual(ids([3, 2, 1, 0]))
      const [, , passed, held] = page.executions
      expect(held).toMatchObject({
        status: 'WAITING',
        triggerKind: 'MANUAL',
        context: { hold: true },
        contact: { id: contacts[0]?.id, email: contacts[0]?.email },
        currentStep: { id: workflow.steps.wait, name: 'wait', type: 'DELAY' },
      })
      expect(passed).toMatchObject({
        status: 'COMPLETED',
        contact: { id: contacts[1]?.id, email: contacts[1]?.email },
        currentStep: null,
      })
      // The engine's bookkeeping stays inside.
      expect(held).not.toHaveProperty('leasedUntil')
      expect(held).not.toHaveProperty('projectId')
    })

    it('GET filters by status, pages, and clamps pageSize at 100', async () => {
      const waiting = await list(workflow.id, '?status=WAITING')
      expect(waiting.total).toBe(3)
      expect(waiting.executions.map((execution) => execution.id)).toEqual(ids([3, 2, 0]))
      const completed = await list(workflow.id, '?status=COMPLETED')
      expect(completed.executions.map((execution) => execution.id)).toEqual(ids([1]))
      expect((await list(workflow.id, '?status=FAILED')).total).toBe(0)

      const second = await list(workflow.id, '?page=2&pageSize=2')
      expect(second).toMatchObject({ total: 4, page: 2, pageSize: 2, totalPages: 2 })
      expect(second.executions.map((execution) => execution.id)).toEqual(ids([1, 0]))
      expect((await list(workflow.id, '?pageSize=500')).pageSize).toBe(100)

      const bogus = await api('GET', `/workflows/${workflow.id}/executions?status=BOGUS`)
      expect(bogus.statusCode).toBe(400)
      expect(bogus.json()).toEqual(badQueryBody('status', 'invalid_enum_value'))
      const pageZero = await api('GET', `/workflows/${workflow.id}/executions?page=0`)
      expect(pageZero.statusCode).toBe(400)
      expect(pageZero.json()).toEqual(badQueryBody('page', 'too_small'))
    })

    it('GET of one execution shows its workflow and every step it ran, in order, with their outputs', async () => {
      const detail = await detailWhen(workflow.id, started[0]?.id ?? '', () => true)
      expect(detail).toMatchObject({
        id: started[0]?.id,
        status: 'WAITING',
        workflow: { id: workflow.id, name: 'On manual-list' },
        contact: { id: contacts[0]?.id, email: contacts[0]?.email },
        currentStep: { id: workflow.steps.wait, name: 'wait', type: 'DELAY' },
      })
      expect(detail.stepExecutions.map((step) => step.step)).toEqual([
        { id: workflow.steps.trigger, name: 'trigger', type: 'TRIGGER' },
        { id: workflow.steps.check, name: 'check', type: 'CONDITION' },
        { id: workflow.steps.wait, name: 'wait', type: 'DELAY' },
      ])
      const [trigger, check, wait] = detail.stepExecutions
      expect(trigger).toMatchObject({
        status: 'COMPLETED',
        output: { triggered: true, eventName: 'manual-list', timestamp: expect.any(String) },
      })
      expect(check).toMatchObject({
        status: 'COMPLETED',
        output: { field: 'event.hold', operator: 'equals', value: true, result: true, branch: 'yes' },
      })
      expect(wait).toMatchObject({
        status: 'WAITING',
        completedAt: null,
        output: { delayAmount: 10, delayUnit: 'minutes', resumeAt: expect.any(String), queued: true },
      })
      const resumeAt = String(wait?.output?.resumeAt)
      expect(wait?.executeAfter).toBe(resumeAt)
      expect(detail.dueAt).toBe(resumeAt)
      const minutesAhead = (Date.parse(resumeAt) - Date.parse(detail.startedAt)) / 60_000
      expect(minutesAhead).toBeGreaterThan(9.9)
      expect(minutesAhead).toBeLessThan(10.1)
    })

    it('DELETE of a finished execution is 409 and leaves it as it was; an unknown one is 404', async () => {
      const finished = started[1]?.id ?? ''
      const response = await api('DELETE', `/workflows/${workflow.id}/executions/${finished}`)
      expect(response.statusCode).toBe(409)
      expect(response.json()).toEqual(refusal('CONFLICT', /COMPLETED/))
      expect((await detailWhen(workflow.id, finished, () => true)).status).toBe('COMPLETED')

      const unknown = await api('DELETE', `/workflows/${workflow.id}/executions/${randomUUID()}`)
      expect(unknown.statusCode).toBe(404)
      expect(unknown.json()).toEqual(refusal('NOT_FOUND', 'Execution not found'))
    })

    it("answers 404 to another project's key on every route, and changes nothing", async () => {
      const foreign = callAs(server, stranger)
      const theirContact = await createContact(server, stranger)
      const base = `/workflows/${workflow.id}/executions`
      const execution = started[0]?.id ?? ''
      const calls = [
        foreign('POST', base, { contactId: theirContact.id }),
        foreign('GET', base),
        foreign('GET', `${base}/${execution}`),
        foreign('DELETE', `${base}/${execution}`),
        foreign('POST', `${base}/cancel-all`),
      ]
      for (const response of await Promise.all(calls)) {
        expect(response.statusCode).toBe(404)
        expect(response.json()).toEqual(refusal('NOT_FOUND', 'Workflow not found'))
      }
      const page = await list(workflow.id)
      expect(page.total).toBe(4)
      expect(page.executions.filter((row) => row.status === 'WAITING')).toHaveLength(3)
    })

    it('answers 404 for an execution of another workflow, and 422 for ids that are not uuids', async () => {
      const other = await insertWorkflow(server, account.project.id, {
        eventName: 'manual-other',
        steps: {},
        edges: [],
      })
      const execution = started[0]?.id ?? ''
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await api(method, `/workflows/${other.id}/executions/${execution}`)
        expect(response.statusCode).toBe(404)
        expect(response.json()).toEqual(refusal('NOT_FOUND', 'Execution not found'))
      }
      const notUuid: [method: 'GET' | 'POST' | 'DELETE', url: string, field: string][] = [
        ['GET', '/workflows/not-a-uuid/executions', 'id'],
        ['POST', '/workflows/not-a-uuid/executions', 'id'],
        ['POST', '/workflows/not-a-uuid/executions/cancel-all', 'id'],
        ['GET', `/workflows/${workflow.id}/executions/nope`, 'executionId'],
        ['DELETE', `/workflows/${workflow.id}/executions/nope`, 'executionId'],
        ['GET', `/workflows/not-a-uuid/executions/${execution}`, 'id'],
      ]
      for (const [method, url, field] of notUuid) {
        const response = await api(method, url, method === 'POST' ? { contactId: contacts[0]?.id } : undefined)
        expect(response.statusCode, `${method} ${url}`).toBe(422)
        expect(response.json().error).toMatchObject({
          code: 'VALIDATION_ERROR',
          message: 'Invalid path parameters',
          errors: [expect.objectContaining({ field })],
        })
      }
    })

    it('cancel-all cancels the RUNNING and WAITING ones only and says how many', async () => {
      // A fifth execution a worker holds right now (a live lease): RUNNING, so cancel-all must take it too.
      const held = await createContact(server, account)
      await server.ctx.db.insert(workflowExecutions).values({
        projectId: account.project.id,
        workflowId: workflow.id,
        contactId: held.id,
        status: 'RUNNING',
        triggerKind: 'MANUAL',
        currentStepId: workflow.steps.check,
        dueAt: new Date(),
        leasedUntil: new Date(Date.now() + 3_600_000),
      })
      expect((await list(workflow.id, '?status=RUNNING')).total).toBe(1)

      const response = await api('POST', `/workflows/${workflow.id}/executions/cancel-all`)
      expect(response.statusCode).toBe(200)
      expect(response.json()).toEqual({ cancelled: 4 })
      const page = await list(workflow.id)
      expect(page.executions.map((execution) => execution.status).sort()).toEqual([
        'CANCELLED',
        'CANCELLED',
        'CANCELLED',
        'CANCELLED',
        'COMPLETED',
      ])
      for (const execution of page.executions.filter((row) => row.status === 'CANCELLED')) {
        expect(execution).toMatchObject({ exitReason: 'Cancelled by user', dueAt: null })
        expect(execution.completedAt).not.toBeNull()
      }
      const detail = await detailWhen(workflow.id, started[0]?.id ?? '', () => true)
      expect(timeline(detail)).toEqual(['trigger:COMPLETED', 'check:COMPLETED', 'wait:SKIPPED'])

      const again = await api('POST', `/workflows/${workflow.id}/executions/cancel-all`)
      expect(again.json()).toEqual({ cancelled: 0 })
    })
  })

  it('DELETE cancels a WAITING execution: CANCELLED, its DELAY SKIPPED, and nothing runs when the DELAY would end', async () => {
    const workflow = await insertWorkflow(server, account.project.id, {
      eventName: 'manual-cancel',
      steps: {
        wait: { type: 'DELAY', config: { amount: 0.02, unit: 'minutes' } },
        note: { type: 'UPDATE_CONTACT', config: { updates: { afterDelay: true } } },
      },
      edges: [
        ['trigger', 'wait'],
        ['wait', 'note'],
      ],
    })
    const contact = await createContact(server, account)
    const started = (await start(workflow.id, { contactId: contact.id })).json<ExecutionJson>()
    const waiting = await detailWhen(workflow.id, started.id, (detail) => detail.status === 'WAITING')
    const dueAt = Date.parse(waiting.dueAt ?? '')

    const response = await api('DELETE', `/workflows/${workflow.id}/executions/${started.id}`)
    expect(response.statusCode).toBe(200)
    const cancelled = response.json<ExecutionDetailJson>()
    expect(cancelled).toMatchObject({
      id: started.id,
      status: 'CANCELLED',
      exitReason: 'Cancelled by user',
      dueAt: null,
      workflow: { id: workflow.id },
    })
    expect(cancelled.completedAt).not.toBeNull()
    expect(timeline(cancelled)).toEqual(['trigger:COMPLETED', 'wait:SKIPPED'])
    expect(cancelled.stepExecutions[1]?.completedAt).not.toBeNull()
    expect(Date.now()).toBeLessThan(dueAt)

    await settle(dueAt - Date.now() + 1_000)
    const later = await detailWhen(workflow.id, started.id, () => true)
    expect(later.status).toBe('CANCELLED')
    expect(timeline(later)).toEqual(['trigger:COMPLETED', 'wait:SKIPPED'])
    expect(await contactData(contact.id)).toEqual({})

    const again = await api('DELETE', `/workflows/${workflow.id}/executions/${started.id}`)
    expect(again.statusCode).toBe(409)
    expect(again.json()).toEqual(refusal('CONFLICT', /CANCELLED/))
  })

  it("keeps every workflow's counters equal to a count of its executions by status", async () => {
    // Nothing in flight: a count taken mid-stretch would race the worker.
    await waitOnLoops(async () => {
      const [busy] = await server.ctx.db
        .select({ n: sql<number>`count(*)::int` })
        .from(workflowExecutions)
        .where(eq(workflowExecutions.status, 'RUNNING'))
      expect(busy?.n).toBe(0)
    }, eventually.timeout)
    const counted = await server.ctx.db.execute<{ workflow_id: string; status: string; n: number }>(sql`
      SELECT workflow_id, status::text, count(*)::int AS n FROM workflow_executions
      WHERE project_id = ${account.project.id} GROUP BY workflow_id, status`)
    const rows = await server.ctx.db.select().from(workflows).where(eq(workflows.projectId, account.project.id))
    // Folding the appended changes (the minute job) must not change any sum either: half the check runs after it.
    const before = await loadExecutionCounts(
      server.ctx.db,
      rows.map((row) => row.id),
    )
    await compactExecutionCounts(server.ctx.db)
    const after = await loadExecutionCounts(
      server.ctx.db,
      rows.map((row) => row.id),
    )
    expect(after).toEqual(before)
    const statuses = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const
    const seen = new Set<string>()
    for (const row of rows) {
      const expected = Object.fromEntries(
        statuses.map((status) => [
          status,
          counted.rows.find((count) => count.workflow_id === row.id && count.status === status)?.n ?? 0,
        ]),
      )
      for (const [status, n] of Object.entries(expected)) if (n > 0) seen.add(status)
      expect(after.get(row.id), row.name).toEqual(expected)
    }
    // The runs above leave executions in these states; the comparison covered each.
    expect([...seen].sort()).toEqual(['CANCELLED', 'COMPLETED', 'WAITING'])
  })
})
