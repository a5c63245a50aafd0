import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addDomain } from '../helpers/domains.js'
import { validationErrorBody } from '../helpers/errors.js'
import { type Account, bearer, callAs, createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { addStep, connect, createWorkflow, insertExecution, triggerOf } from '../workflows/api/helpers.js'

/**
 * Plunk's MCP client sends `Content-Type: application/json` on every request, bodiless DELETEs and POSTs included.
 * Such a request carries no body, and is answered as if the header were not there. Real HTTP: `inject` may add or
 * drop headers on the way.
 */

let server: TestServer
let account: Account
let stranger: Account
let api: ReturnType<typeof callAs>
let from: string

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
  stranger = await createAccount(server, 'Another project')
  api = callAs(server, account)
  from = `news@${(await addDomain(server, account, `bodies-${process.pid}.mailroom.test`)).domain}`
})
afterAll(async () => {
  await server.close()
})

/** A request exactly as Plunk's client sends it when it has no body. */
function sendBodiless(method: 'POST' | 'DELETE', path: string, key = account.secretKey) {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { ...bearer(key), 'Content-Type': 'application/json' },
  })
}

/** The id in the JSON answer of a create through the API (wrapped in `data` on campaign routes). */
async function created(method: 'POST', path: string, body: object): Promise<string> {
  const response = await api(method, path, body)
  expect(response.statusCode, response.body).toBeLessThan(300)
  const json = response.json()
  return json.data?.id ?? json.id
}

const newCampaign = () =>
  created('POST', '/campaigns', {
    name: 'Launch',
    subject: 'Hi',
    body: '<p>Hi</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
    from,
    audienceType: 'ALL',
  })
const newTemplate = () => created('POST', '/templates', { name: 'Welcome', subject: 'Hi', body: '<p>Hi</p>', from })
const newSegment = () =>
  created('POST', '/segments', {
    name: 'Pro',
    condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
  })

async function statusOf(path: string): Promise<number> {
  return (await api('GET', path)).statusCode
}

/** What a route needs to exist, the request, its answer, and what the database shows afterwards. */
type Case = {
  name: string
  status: number
  prepare(): Promise<{ method: 'POST' | 'DELETE'; path: string; after(): Promise<void> }>
}

/** DELETE `resource/<id>` of a row `create` made; reading it afterwards is a 404. */
function deletes(name: string, status: number, resource: string, create: () => Promise<string>): Case {
  return {
    name: `deleting ${name}`,
    status,
    async prepare() {
      const path = `${resource}/${await create()}`
      return { method: 'DELETE', path, after: async () => expect(await statusOf(path)).toBe(404) }
    },
  }
}

/** POST `resource/<id>/duplicate`; the list under `resource` holds one more. */
function duplicates(name: string, resource: string, create: () => Promise<string>): Case {
  return {
    name: `duplicating ${name}`,
    status: 201,
    async prepare() {
      const id = await create()
      const total = async () => (await api('GET', resource)).json().total
      const before = await total()
      return {
        method: 'POST',
        path: `${resource}/${id}/duplicate`,
        after: async () => expect(await total()).toBe(before + 1),
      }
    },
  }
}

/** Cancels a WAITING execution of a new workflow through `path`; it reads CANCELLED afterwards. */
function cancelsExecution(
  name: string,
  method: 'POST' | 'DELETE',
  path: (workflowId: string, executionId: string) => string,
): Case {
  return {
    name,
    status: 200,
    async prepare() {
      const { id } = await createWorkflow(server, account)
      const step = await addStep(server, account, id)
      const execution = await insertExecution(server, account, id, step.id)
      const read = () => api('GET', `/workflows/${id}/executions/${execution}`)
      return {
        method,
        path: path(id, execution),
        after: async () => expect((await read()).json().status).toBe('CANCELLED'),
      }
    },
  }
}

const newWorkflow = async () => (await createWorkflow(server, account)).id

const cases: Case[] = [
  {
    name: 'cancelling a scheduled campaign puts it back to DRAFT',
    status: 200,
    async prepare() {
      await createContact(server, account, { subscribed: true })
      const id = await newCampaign()
      const scheduledFor = new Date(Date.now() + 3_600_000).toISOString()
      expect((await api('POST', `/campaigns/${id}/send`, { scheduledFor })).statusCode).toBe(200)
      const read = () => api('GET', `/campaigns/${id}`)
      return {
        method: 'POST',
        path: `/campaigns/${id}/cancel`,
        after: async () => expect((await read()).json().data).toMatchObject({ status: 'DRAFT', scheduledFor: null }),
      }
    },
  },
  deletes('a campaign', 200, '/campaigns', newCampaign),
  duplicates('a campaign', '/campaigns', newCampaign),
  deletes('a contact', 204, '/contacts', async () => (await createContact(server, account)).id),
  {
    name: 'deleting a contact field',
    status: 200,
    async prepare() {
      const { id } = await createContact(server, account, { data: { shoeSize: 42 } })
      return {
        method: 'DELETE',
        path: '/contacts/fields/shoeSize',
        after: async () => expect((await api('GET', `/contacts/${id}`)).json().data).toEqual({}),
      }
    },
  },
  deletes('a template', 204, '/templates', newTemplate),
  duplicates('a template', '/templates', newTemplate),
  deletes('a segment', 204, '/segments', newSegment),
  deletes('a workflow', 204, '/workflows', newWorkflow),
  duplicates('a workflow', '/workflows', newWorkflow),
  {
    name: 'deleting a workflow step',
    status: 204,
    async prepare() {
      const id = await newWorkflow()
      const path = `/workflows/${id}/steps/${(await addStep(server, account, id)).id}`
      return { method: 'DELETE', path, after: async () => expect(await statusOf(path)).toBe(404) }
    },
  },
  {
    name: 'deleting a workflow transition',
    status: 204,
    async prepare() {
      const id = await newWorkflow()
      const step = await addStep(server, account, id)
      const transition = await connect(server, account, id, (await triggerOf(server, account, id)).id, step.id)
      const outgoing = async () => (await triggerOf(server, account, id)).outgoingTransitions
      return {
        method: 'DELETE',
        path: `/workflows/${id}/transitions/${transition.id}`,
        after: async () => expect(await outgoing()).toEqual([]),
      }
    },
  },
  cancelsExecution('cancelling a workflow execution', 'DELETE', (id, run) => `/workflows/${id}/executions/${run}`),
  cancelsExecution(
    "cancelling all of a workflow's executions",
    'POST',
    (id) => `/workflows/${id}/executions/cancel-all`,
  ),
  {
    name: 'deleting a suppression',
    status: 204,
    async prepare() {
      const email = 'bounced@example.com'
      expect((await api('POST', '/suppressions', { email, reason: 'bounce' })).statusCode).toBe(201)
      return {
        method: 'DELETE',
        path: `/suppressions/${email}`,
        after: async () => expect((await api('GET', '/suppressions')).json().data).toEqual([]),
      }
    },
  },
]

describe('a bodiless request with Content-Type: application/json', () => {
  for (const { name, prepare, status } of cases) {
    it(`${name}: ${status}, and done`, async () => {
      const { method, path, after } = await prepare()
      const response = await sendBodiless(method, path)
      expect(response.status, await response.clone().text()).toBe(status)
      await after()
    })
  }

  it("another project's id is still 404, and nothing changes", async () => {
    const id = await newCampaign()
    const response = await sendBodiless('DELETE', `/campaigns/${id}`, stranger.secretKey)
    expect(response.status).toBe(404)
    expect(await statusOf(`/campaigns/${id}`)).toBe(200)
  })
})

describe('a route that needs a body, sent none with Content-Type: application/json', () => {
  it('answers 422 naming the missing fields', async () => {
    const response = await sendBodiless('POST', '/campaigns')
    expect(response.status).toBe(422)
    expect(await response.json()).toEqual(validationErrorBody(['name', 'subject', 'body', 'from', 'audienceType']))
  })

  it('POST /contacts answers the spec plain 400 naming email', async () => {
    const response = await sendBodiless('POST', '/contacts')
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 'email is required' })
  })
})
