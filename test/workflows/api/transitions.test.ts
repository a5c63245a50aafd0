import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, callAs, createAccount } from '../../helpers/factories.js'
import { notFoundBody } from '../../helpers/scoping.js'
import { startTestServer, type TestServer } from '../../helpers/server.js'
import {
  addStep,
  connect,
  createWorkflow,
  errorBody,
  expectInvalid,
  insertExecution,
  postTransition,
  storedGraph,
  triggerOf,
  unknownId,
} from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server?.close())

const isPro = { field: 'data.plan', operator: 'equals', value: 'pro' }

/** A 400 with this message, and the workflow's graph as it was. */
async function expectRefused(
  owner: Account,
  workflowId: string,
  body: Record<string, unknown>,
  message: string,
  status = 400,
) {
  const before = await storedGraph(server, workflowId)
  const response = await postTransition(server, owner, workflowId, body)
  expect(response.statusCode, response.body).toBe(status)
  expect(response.json()).toEqual(errorBody(status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', status, message))
  expect(await storedGraph(server, workflowId)).toEqual(before)
}

describe('transitions: add', () => {
  it('links two steps with 201 and the bare transition, keeping the priority', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const trigger = await triggerOf(server, owner, workflow.id)
    const step = await addStep(server, owner, workflow.id)
    const response = await postTransition(server, owner, workflow.id, {
      fromStepId: trigger.id,
      toStepId: step.id,
      priority: 3,
    })
    expect(response.statusCode).toBe(201)
    expect(response.json()).toEqual({
      id: expect.any(String),
      fromStepId: trigger.id,
      toStepId: step.id,
      condition: null,
      waitOutcome: null,
      priority: 3,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
  })

  it('refuses a cycle, a self-link, a link out of an EXIT and one into the TRIGGER', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const trigger = await triggerOf(server, owner, workflow.id)
    const a = await addStep(server, owner, workflow.id, { name: 'A', autoConnect: true })
    const b = await addStep(server, owner, workflow.id, { name: 'B', autoConnect: true })
    const check = await addStep(server, owner, workflow.id, {
      type: 'CONDITION',
      name: 'Check',
      config: isPro,
      autoConnect: true,
    })
    const exit = await addStep(server, owner, workflow.id, { type: 'EXIT', name: 'End', config: {} })
    const loop = 'This connection would create a loop in the workflow'
    await expectRefused(owner, workflow.id, { fromStepId: check.id, toStepId: a.id, condition: { branch: 'no' } }, loop)
    await expectRefused(owner, workflow.id, { fromStepId: check.id, toStepId: b.id, condition: { branch: 'no' } }, loop)
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: a.id, toStepId: a.id },
      'A step cannot be connected to itself',
    )
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: exit.id, toStepId: a.id },
      'An exit step ends the flow and cannot be connected to another step',
    )
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: exit.id, toStepId: trigger.id },
      'The trigger step starts the workflow; no transition can lead into it',
    )
  })

  it('CONDITION: a branch is required, must exist, and is taken once', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const check = await addStep(server, owner, workflow.id, { type: 'CONDITION', name: 'Pro?', config: isPro })
    const yes = await addStep(server, owner, workflow.id, { name: 'Yes' })
    const also = await addStep(server, owner, workflow.id, { name: 'Also' })
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: check.id, toStepId: yes.id },
      'A transition from a CONDITION step needs condition.branch, one of: yes, no',
    )
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: check.id, toStepId: yes.id, condition: { branch: 'maybe' } },
      '"Pro?" has no branch "maybe"; its branches are: yes, no',
    )
    const taken = await connect(server, owner, workflow.id, check.id, yes.id, { condition: { branch: 'yes' } })
    expect(taken.condition).toEqual({ branch: 'yes' })
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: check.id, toStepId: also.id, condition: { branch: 'yes' } },
      'A transition for the "yes" branch already exists from "Pro?"',
    )
    await connect(server, owner, workflow.id, check.id, also.id, { condition: { branch: 'no' } })
  })

  it("CONDITION: takes the spec's top-level branch as Plunk's condition.branch; both must agree", async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const check = await addStep(server, owner, workflow.id, { type: 'CONDITION', name: 'Pro?', config: isPro })
    const yes = await addStep(server, owner, workflow.id, { name: 'Yes' })
    const no = await addStep(server, owner, workflow.id, { name: 'No' })
    const post = (account: Account, workflowId: string, body: Record<string, unknown>) =>
      server.app.inject({
        method: 'POST',
        url: `/workflows/${workflowId}/transitions`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${account.secretKey}` },
        payload: JSON.stringify(body),
      })

    const before = await storedGraph(server, workflow.id)
    const disagree = await post(owner, workflow.id, {
      fromStepId: check.id,
      toStepId: yes.id,
      branch: 'yes',
      condition: { branch: 'no' },
    })
    expectInvalid(disagree, ['branch'])
    expect(disagree.json().error.errors[0].message).toBe(
      'branch "yes" and condition.branch "no" disagree; send one of them',
    )
    const stranger = await createAccount(server)
    const elsewhere = await post(stranger, workflow.id, { fromStepId: check.id, toStepId: yes.id, branch: 'yes' })
    expect(elsewhere.statusCode).toBe(404)
    expect(elsewhere.json()).toEqual(notFoundBody('Workflow'))
    expect(await storedGraph(server, workflow.id)).toEqual(before)

    const topLevel = await post(owner, workflow.id, { fromStepId: check.id, toStepId: yes.id, branch: 'yes' })
    expect(topLevel.statusCode, topLevel.body).toBe(201)
    expect(topLevel.json()).toMatchObject({ fromStepId: check.id, toStepId: yes.id, condition: { branch: 'yes' } })
    const both = await post(owner, workflow.id, {
      fromStepId: check.id,
      toStepId: no.id,
      branch: 'no',
      condition: { branch: 'no' },
    })
    expect(both.statusCode, both.body).toBe(201)
    const stored = (await storedGraph(server, workflow.id)).transitions
    expect(stored.map((row) => [row.toStepId, row.condition]).sort()).toEqual(
      [
        [yes.id, { branch: 'yes' }],
        [no.id, { branch: 'no' }],
      ].sort(),
    )
  })

  it('a multi CONDITION takes its branch ids and default', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const check = await addStep(server, owner, workflow.id, {
      type: 'CONDITION',
      name: 'Plan',
      config: {
        mode: 'multi',
        field: 'data.plan',
        branches: [{ id: 'pro', name: 'Pro', operator: 'equals', value: 'pro' }],
      },
    })
    const pro = await addStep(server, owner, workflow.id, { name: 'Pro' })
    const rest = await addStep(server, owner, workflow.id, { name: 'Rest' })
    await connect(server, owner, workflow.id, check.id, pro.id, { condition: { branch: 'pro' } })
    await connect(server, owner, workflow.id, check.id, rest.id, { condition: { branch: 'default' } })
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: check.id, toStepId: rest.id, condition: { branch: 'yes' } },
      '"Plan" has no branch "yes"; its branches are: pro, default',
    )
  })

  it('WAIT_FOR_EVENT: one EVENT and one TIMEOUT route (any case, or as a branch), TIMEOUT only with a timeout', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const timed = await addStep(server, owner, workflow.id, {
      type: 'WAIT_FOR_EVENT',
      name: 'Wait',
      config: { eventName: 'paid', timeout: 3600 },
    })
    const open = await addStep(server, owner, workflow.id, {
      type: 'WAIT_FOR_EVENT',
      name: 'Open wait',
      config: { eventName: 'paid' },
    })
    const paid = await addStep(server, owner, workflow.id, { name: 'Paid' })
    const late = await addStep(server, owner, workflow.id, { name: 'Late' })
    expect((await connect(server, owner, workflow.id, timed.id, paid.id, { waitOutcome: 'event' })).waitOutcome).toBe(
      'EVENT',
    )
    const viaBranch = await connect(server, owner, workflow.id, timed.id, late.id, { condition: { branch: 'timeout' } })
    expect(viaBranch).toMatchObject({ waitOutcome: 'TIMEOUT', condition: null })
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: timed.id, toStepId: late.id, waitOutcome: 'EVENT' },
      'The EVENT route of "Wait" already has a transition',
    )
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: open.id, toStepId: late.id, waitOutcome: 'TIMEOUT' },
      'A TIMEOUT transition requires a timeout on the wait step',
    )
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: open.id, toStepId: late.id },
      'WAIT_FOR_EVENT transitions require an EVENT or TIMEOUT outcome',
    )
    expectInvalid(
      await postTransition(server, owner, workflow.id, {
        fromStepId: open.id,
        toStepId: late.id,
        waitOutcome: 'later',
      }),
      ['waitOutcome'],
    )
  })

  it('other steps lead to one step only, and carry neither branch nor outcome', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const a = await addStep(server, owner, workflow.id, { name: 'A' })
    const b = await addStep(server, owner, workflow.id, { name: 'B' })
    const c = await addStep(server, owner, workflow.id, { name: 'C' })
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: a.id, toStepId: b.id, condition: { branch: 'yes' } },
      'Only CONDITION steps can declare a transition condition',
    )
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: a.id, toStepId: b.id, waitOutcome: 'EVENT' },
      'Only WAIT_FOR_EVENT steps can declare a wait outcome',
    )
    await connect(server, owner, workflow.id, a.id, b.id)
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: a.id, toStepId: c.id },
      '"A" already leads to another step. Disconnect it first, or use a condition step to branch.',
    )
  })

  it('refuses a step of another workflow with 404, and bad ids or types with 400/422', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const other = await createWorkflow(server, owner)
    const mine = await addStep(server, owner, workflow.id)
    const theirs = await addStep(server, owner, other.id)
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: mine.id, toStepId: theirs.id },
      'One or both steps not found',
      404,
    )
    await expectRefused(
      owner,
      workflow.id,
      { fromStepId: mine.id, toStepId: unknownId },
      'One or both steps not found',
      404,
    )
    await expectRefused(owner, workflow.id, { fromStepId: mine.id }, 'From step ID and to step ID are required')
    expectInvalid(await postTransition(server, owner, workflow.id, { fromStepId: mine.id, toStepId: 'x' }), [
      'toStepId',
    ])
    expectInvalid(
      await postTransition(server, owner, workflow.id, { fromStepId: mine.id, toStepId: theirs.id, priority: -1 }),
      ['priority'],
    )
  })

  it('two concurrent transitions that would close a cycle together: one is refused', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const a = await addStep(server, owner, workflow.id, { name: 'A' })
    const b = await addStep(server, owner, workflow.id, { name: 'B' })
    const answers = await Promise.all([
      postTransition(server, owner, workflow.id, { fromStepId: a.id, toStepId: b.id }),
      postTransition(server, owner, workflow.id, { fromStepId: b.id, toStepId: a.id }),
    ])
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 400])
    expect((await storedGraph(server, workflow.id)).transitions).toHaveLength(1)
  })

  it('two concurrent yes branches: one is refused', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const check = await addStep(server, owner, workflow.id, { type: 'CONDITION', name: 'Pro?', config: isPro })
    const targets = await Promise.all([1, 2, 3].map((n) => addStep(server, owner, workflow.id, { name: `T${n}` })))
    const answers = await Promise.all(
      targets.map((target) =>
        postTransition(server, owner, workflow.id, {
          fromStepId: check.id,
          toStepId: target.id,
          condition: { branch: 'yes' },
        }),
      ),
    )
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 400, 400])
  })
})

describe('transitions: delete', () => {
  it('deletes with 204', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    await addStep(server, owner, workflow.id, { autoConnect: true })
    const [transition] = (await storedGraph(server, workflow.id)).transitions
    const response = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/transitions/${transition?.id}`)
    expect(response.statusCode).toBe(204)
    expect((await storedGraph(server, workflow.id)).transitions).toEqual([])
  })

  it('409 while an execution stands on its source step; 404 for another workflow transition', async () => {
    const owner = await createAccount(server)
    const workflow = await createWorkflow(server, owner)
    const step = await addStep(server, owner, workflow.id, { autoConnect: true })
    await addStep(server, owner, workflow.id, { autoConnect: true })
    await insertExecution(server, owner, workflow.id, step.id, 'WAITING')
    const graph = await storedGraph(server, workflow.id)
    const out = graph.transitions.find((transition) => transition.fromStepId === step.id)
    const response = await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/transitions/${out?.id}`)
    expect(response.statusCode).toBe(409)
    expect(response.json().error).toMatchObject({ code: 'CONFLICT', details: { stepId: step.id, activeExecutions: 1 } })
    expect(await storedGraph(server, workflow.id)).toEqual(graph)
    // The transition into the step has another source, on which nobody waits.
    const into = graph.transitions.find((transition) => transition.toStepId === step.id)
    expect(
      (await callAs(server, owner)('DELETE', `/workflows/${workflow.id}/transitions/${into?.id}`)).statusCode,
    ).toBe(204)
    const other = await createWorkflow(server, owner)
    for (const id of [out?.id, unknownId, 'nope']) {
      const missing = await callAs(server, owner)('DELETE', `/workflows/${other.id}/transitions/${id}`)
      expect(missing.json()).toEqual(notFoundBody('Transition'))
    }
  })
})
