import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { expect, vi } from 'vitest'
import { addDomain, publishAllRecords, type ServerWithDns } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { type Account, callAs, createContact, uniqueEmail } from '../helpers/factories.js'
import type { SmtpSink } from '../helpers/smtp-sink.js'

/*
 * One walk through every tool of Mailroom's MCP server with the SDK's own client, over whichever transport the
 * client was connected with. Each call is checked by what it did: the API's own answer afterwards, or what reached
 * the SMTP sink.
 */

export const readTools = [
  'count_segment',
  'find_contact',
  'get_analytics',
  'get_campaign',
  'get_campaign_stats',
  'get_template',
  'get_workflow',
  'list_activity',
  'list_campaigns',
  'list_contacts',
  'list_domains',
  'list_segment_members',
  'list_segments',
  'list_suppressions',
  'list_templates',
  'list_workflow_executions',
  'list_workflows',
  'preview_template',
  'verify_domain',
]

const writeTools = [
  'add_domain',
  'add_suppression',
  'cancel_campaign',
  'create_campaign',
  'create_template',
  'delete_contact',
  'delete_template',
  'remove_suppression',
  'send_campaign',
  'send_campaign_test',
  'send_email',
  'set_contact_subscription',
  'set_workflow_enabled',
  'track_event',
  'update_template',
  'upsert_contact',
]

export type ToolAnswer = {
  isError: boolean
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: a tool's JSON answer, read field by field in assertions
  data: any
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args })
  const content = result.content as { type: string; text?: string }[]
  return { isError: result.isError === true, text: content[0]?.text ?? '', data: result.structuredContent }
}

/** A call that must succeed; its structured answer. */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const answer = await callTool(client, name, args)
  expect(answer.isError, `${name}: ${answer.text}`).toBe(false)
  return answer.data
}

/** A call refused for want of `confirm: true`. */
async function refusedUnconfirmed(client: Client, name: string, args: Record<string, unknown>) {
  const answer = await callTool(client, name, args)
  expect(answer.isError).toBe(true)
  expect(answer.text).toContain(`${name} needs "confirm": true`)
}

export type WalkEnv = {
  env: ServerWithDns
  sink: SmtpSink
  account: Account
  /** Another project on the same server, whose ids the walk's tools must not find. */
  other: Account
  /** The server's MCP_CONFIRM_RECIPIENTS. */
  confirmRecipientsAbove: number
}

async function listToolsAsExpected(client: Client, names: readonly string[]) {
  const { tools } = await client.listTools()
  expect(tools.map((tool) => tool.name).sort()).toEqual([...names].sort())
  for (const tool of tools) {
    expect(tool.description, tool.name).toMatch(/\w{3,}/)
    expect(tool.inputSchema.type, tool.name).toBe('object')
    const read = readTools.includes(tool.name)
    expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: read })
    const confirmable = ['delete_contact', 'delete_template', 'remove_suppression', 'send_campaign', 'send_email']
    expect(Object.keys(tool.inputSchema.properties ?? {}).includes('confirm'), tool.name).toBe(
      confirmable.includes(tool.name),
    )
  }
  return tools
}

export async function walkEveryTool(client: Client, walk: WalkEnv): Promise<void> {
  const { env, sink, account, other, confirmRecipientsAbove } = walk
  const { server, dns } = env
  const api = callAs(server, account)

  const tools = await listToolsAsExpected(client, [...readTools, ...writeTools])
  const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))
  expect(annotations.delete_contact).toMatchObject({ destructiveHint: true, idempotentHint: true })
  expect(annotations.send_email).toMatchObject({ destructiveHint: false, idempotentHint: false, openWorldHint: true })
  expect(annotations.upsert_contact).toMatchObject({ destructiveHint: false, idempotentHint: true })

  // Domains: add, publish the records the answer names (the campaign's pre-send check reads the audit), verify.
  const domainName = `mcp-${Math.random().toString(36).slice(2, 10)}.mailroom.test`
  const added = await ok(client, 'add_domain', { domain: domainName })
  expect(added).toMatchObject({ domain: domainName, status: 'PENDING' })
  publishAllRecords(dns, added)
  expect(await ok(client, 'verify_domain', { id: added.id })).toMatchObject({ status: 'VERIFIED' })
  const domains = (await callTool(client, 'list_domains')).text
  expect(JSON.parse(domains)).toEqual([expect.objectContaining({ id: added.id, verified: true })])
  const from = `news@${domainName}`

  // Contacts.
  const email = uniqueEmail('mcp')
  const upserted = await ok(client, 'upsert_contact', { email, data: { firstName: 'Ada' } })
  expect(upserted).toMatchObject({ email, data: { firstName: 'Ada' }, _meta: { isNew: true } })
  expect(await ok(client, 'find_contact', { contact: email })).toMatchObject({ id: upserted.id })
  expect(await ok(client, 'find_contact', { contact: upserted.id })).toMatchObject({ email })
  const listed = await ok(client, 'list_contacts', { search: email.split('@')[0] })
  expect(listed.data.map((contact: { id: string }) => contact.id)).toEqual([upserted.id])
  await ok(client, 'set_contact_subscription', { contact: email, subscribed: false })
  expect((await api('GET', `/contacts/${upserted.id}`)).json()).toMatchObject({ subscribed: false })
  await ok(client, 'set_contact_subscription', { contact: upserted.id, subscribed: true })
  expect((await api('GET', `/contacts/${upserted.id}`)).json()).toMatchObject({ subscribed: true })

  // Workflows (made through the API; the tools read, enable and follow them), then an event that starts one.
  const created = await api('POST', '/workflows', { name: 'MCP welcome', eventName: 'mcp-signed-up' })
  expect(created.statusCode, created.body).toBe(201)
  const workflowId = created.json<{ id: string }>().id
  expect((await ok(client, 'list_workflows')).data).toEqual([expect.objectContaining({ id: workflowId })])
  expect(await ok(client, 'get_workflow', { id: workflowId })).toMatchObject({
    id: workflowId,
    steps: [expect.objectContaining({ type: 'TRIGGER' })],
  })
  await ok(client, 'set_workflow_enabled', { id: workflowId, enabled: true })
  expect((await api('GET', `/workflows/${workflowId}`)).json()).toMatchObject({ enabled: true })
  expect(await ok(client, 'track_event', { email, event: 'mcp-signed-up', data: { plan: 'pro' } })).toMatchObject({
    success: true,
    data: { contact: upserted.id },
  })
  await vi.waitFor(async () => {
    const executions = await ok(client, 'list_workflow_executions', { id: workflowId })
    expect(executions.executions).toEqual([expect.objectContaining({ contactId: upserted.id })])
  }, eventually)
  await vi.waitFor(async () => {
    const activity = await ok(client, 'list_activity', { types: ['event.triggered'], contactId: upserted.id })
    expect(activity.data).toEqual([expect.objectContaining({ name: 'mcp-signed-up' })])
  }, eventually)

  // Templates.
  const template = await ok(client, 'create_template', {
    name: 'MCP receipt',
    subject: 'Receipt',
    body: '<p>Thanks, {{ data.firstName }}!</p>',
    from,
    type: 'TRANSACTIONAL',
  })
  expect(template).toMatchObject({ name: 'MCP receipt', type: 'TRANSACTIONAL' })
  await ok(client, 'update_template', { id: template.id, subject: 'Your receipt, {{ data.firstName }}' })
  expect(await ok(client, 'get_template', { id: template.id })).toMatchObject({
    subject: 'Your receipt, {{ data.firstName }}',
  })
  expect((await ok(client, 'list_templates', { search: 'MCP receipt' })).data).toEqual([
    expect.objectContaining({ id: template.id }),
  ])
  const preview = await ok(client, 'preview_template', { id: template.id, contactId: upserted.id })
  expect(preview).toMatchObject({ subject: 'Your receipt, Ada', html: expect.stringContaining('Thanks, Ada!') })

  // Sending: a template to one contact reaches the sink; a send to more recipients than the limit waits for
  // confirmation and queues nothing until it has it.
  const sent = await ok(client, 'send_email', { to: email, template: template.id })
  expect(sent.data.emails).toEqual([{ contact: { id: upserted.id, email }, email: expect.any(String) }])
  const [receipt] = await sink.waitForMessages(1)
  expect(receipt?.parsed.subject).toBe('Your receipt, Ada')
  expect(receipt?.envelope.to).toEqual([email])
  const many = Array.from({ length: confirmRecipientsAbove + 1 }, () => uniqueEmail('many'))
  const inline = { to: many, from, subject: 'Hello all', body: '<p>Hello</p>' }
  await refusedUnconfirmed(client, 'send_email', inline)
  expect((await api('POST', '/contacts/lookup', { emails: many })).json().found).toEqual([])
  expect((await ok(client, 'send_email', { ...inline, confirm: true })).data.emails).toHaveLength(many.length)
  await sink.waitForMessages(1 + many.length)

  // Segments (made through the API) and a campaign to one.
  const segmentAnswer = await api('POST', '/segments', {
    name: 'MCP readers',
    condition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'equals', value: email }] }] },
  })
  expect(segmentAnswer.statusCode, segmentAnswer.body).toBe(201)
  const segmentId = segmentAnswer.json<{ id: string }>().id
  expect(JSON.parse((await callTool(client, 'list_segments')).text)).toEqual([
    expect.objectContaining({ id: segmentId }),
  ])
  expect(await ok(client, 'count_segment', { id: segmentId })).toEqual({ memberCount: 1 })
  expect((await ok(client, 'list_segment_members', { id: segmentId })).data).toEqual([
    expect.objectContaining({ id: upserted.id }),
  ])

  const campaignInput = {
    name: 'MCP news',
    subject: 'News for {{ data.firstName }}',
    body: '<p>News</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
    from,
    audienceType: 'SEGMENT',
    segmentId,
  }
  const scheduled = (await ok(client, 'create_campaign', campaignInput)).data
  expect(scheduled).toMatchObject({ status: 'DRAFT', segmentId })
  expect((await ok(client, 'get_campaign', { id: scheduled.id })).data).toMatchObject({ name: 'MCP news' })
  expect((await ok(client, 'list_campaigns', { status: 'DRAFT' })).data).toEqual([
    expect.objectContaining({ id: scheduled.id }),
  ])
  sink.reset()
  await ok(client, 'send_campaign_test', { id: scheduled.id, email: account.email })
  const [test] = await sink.waitForMessages(1)
  expect(test?.envelope.to).toEqual([account.email])
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString()
  await refusedUnconfirmed(client, 'send_campaign', { id: scheduled.id, scheduledFor: tomorrow })
  expect((await api('GET', `/campaigns/${scheduled.id}`)).json().data).toMatchObject({ status: 'DRAFT' })
  await ok(client, 'send_campaign', { id: scheduled.id, scheduledFor: tomorrow, confirm: true })
  expect((await api('GET', `/campaigns/${scheduled.id}`)).json().data).toMatchObject({ status: 'SCHEDULED' })
  await ok(client, 'cancel_campaign', { id: scheduled.id })
  expect((await api('GET', `/campaigns/${scheduled.id}`)).json().data).toMatchObject({ status: 'DRAFT' })

  const now = (await ok(client, 'create_campaign', { ...campaignInput, name: 'MCP news now' })).data
  await ok(client, 'send_campaign', { id: now.id, confirm: true })
  const [, news] = await sink.waitForMessages(2)
  expect(news?.parsed.subject).toBe('News for Ada')
  await vi.waitFor(async () => {
    expect((await ok(client, 'get_campaign_stats', { id: now.id })).data).toMatchObject({ sentCount: 1 })
  }, eventually)
  const analytics = await ok(client, 'get_analytics', { granularity: 'day' })
  expect(Object.keys(analytics).sort()).toEqual(['timeseries', 'topCampaigns', 'topEvents'])

  // Suppressions.
  const dead = uniqueEmail('dead')
  await ok(client, 'add_suppression', { email: dead })
  expect((await ok(client, 'list_suppressions', { search: dead })).data).toEqual([
    expect.objectContaining({ email: dead, reason: 'bounce' }),
  ])
  await refusedUnconfirmed(client, 'remove_suppression', { email: dead })
  expect((await ok(client, 'list_suppressions', { search: dead })).data).toHaveLength(1)
  await ok(client, 'remove_suppression', { email: dead, confirm: true })
  expect((await ok(client, 'list_suppressions', { search: dead })).data).toEqual([])

  // Deletes wait for confirmation, then delete.
  const spare = await ok(client, 'create_template', { name: 'Spare', subject: 'S', body: '<p>S</p>', from })
  await refusedUnconfirmed(client, 'delete_template', { id: spare.id })
  expect((await api('GET', `/templates/${spare.id}`)).statusCode).toBe(200)
  await ok(client, 'delete_template', { id: spare.id, confirm: true })
  expect((await api('GET', `/templates/${spare.id}`)).statusCode).toBe(404)
  const leaving = await createContact(server, account)
  await refusedUnconfirmed(client, 'delete_contact', { contact: leaving.email })
  expect((await api('GET', `/contacts/${leaving.id}`)).statusCode).toBe(200)
  await ok(client, 'delete_contact', { contact: leaving.email, confirm: true })
  expect((await api('GET', `/contacts/${leaving.id}`)).statusCode).toBe(404)

  // Another project's ids find nothing, and change nothing.
  const theirs = await createContact(server, other, { data: { secret: 'theirs' } })
  const theirDomain = await addDomain(server, other, `other-${Math.random().toString(36).slice(2, 10)}.mailroom.test`)
  const theirWorkflow = (
    await callAs(server, other)('POST', '/workflows', { name: 'Theirs', eventName: 'theirs' })
  ).json<{ id: string }>()
  for (const [name, args] of [
    ['find_contact', { contact: theirs.email }],
    ['find_contact', { contact: theirs.id }],
    ['set_contact_subscription', { contact: theirs.id, subscribed: false }],
    ['delete_contact', { contact: theirs.id, confirm: true }],
    ['verify_domain', { id: theirDomain.id }],
    ['get_workflow', { id: theirWorkflow.id }],
    ['set_workflow_enabled', { id: theirWorkflow.id, enabled: true }],
  ] as const) {
    const answer = await callTool(client, name, args)
    expect(answer.isError, name).toBe(true)
    expect(answer.text, name).toContain('404')
    expect(answer.text, name).not.toContain('theirs')
  }
  const theirApi = callAs(server, other)
  expect((await theirApi('GET', `/contacts/${theirs.id}`)).json()).toMatchObject({ subscribed: true })
  expect((await theirApi('GET', `/workflows/${theirWorkflow.id}`)).json()).toMatchObject({ enabled: false })

  // Arguments that fail a tool's schema: an error naming the field, and nothing changes.
  const before = (await api('GET', '/templates')).json().total
  const missing = await callTool(client, 'create_template', { name: 'No subject', body: '<p>x</p>', from })
  expect(missing.isError).toBe(true)
  expect(missing.text).toContain('subject')
  const badId = await callTool(client, 'get_campaign', { id: 'not-a-uuid' })
  expect(badId.isError).toBe(true)
  expect(badId.text).toMatch(/Invalid UUID at id$/)
  expect((await api('GET', '/templates')).json().total).toBe(before)
}

/** A server limited to the read tools lists only those, and every write tool is unknown to it. */
export async function expectReadOnly(client: Client, account: Account, env: ServerWithDns): Promise<void> {
  await listToolsAsExpected(client, readTools)
  const contactsBefore = (await callAs(env.server, account)('GET', '/contacts')).json().total
  for (const name of writeTools) {
    const answer = await callTool(client, name, { email: uniqueEmail('ro'), event: 'x', confirm: true })
    expect(answer.isError, name).toBe(true)
    expect(answer.text, name).toContain(`Tool ${name} not found`)
  }
  expect((await callAs(env.server, account)('GET', '/contacts')).json().total).toBe(contactsBefore)
  expect((await callTool(client, 'list_contacts')).isError).toBe(false)
}
