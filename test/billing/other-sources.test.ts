import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InboundMessage } from '../../src/mail/inbound/message.js'
import { receiveInboundMessage } from '../../src/modules/inbound/service.js'
import { addDomain } from '../helpers/domains.js'
import { createAccount, createContact } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { executionsWhen, insertTemplate, insertWorkflow, stepsOf, track } from '../workflows/engine/fixtures.js'
import { emailCount, eventsNamed, setLimits, usageOf } from './helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

function inbound(to: string, messageId: string): InboundMessage {
  return {
    messageId,
    from: 'someone@sender.test',
    fromHeader: 'someone@sender.test',
    to,
    subject: 'Hello',
    timestamp: new Date().toISOString(),
    recipients: [to],
    hasContent: false,
    body: '',
    spamVerdict: 'DISABLED',
    virusVerdict: 'DISABLED',
    spfVerdict: 'GRAY',
    dkimVerdict: 'GRAY',
    dmarcVerdict: 'GRAY',
    processingTimeMillis: 1,
  }
}

describe('billing caps: workflows and inbound mail', () => {
  it('a SEND_EMAIL step over the workflows cap fails its execution and queues nothing', async () => {
    const account = await createAccount(server)
    const domain = await addDomain(server, account, `flows-${account.project.id.slice(0, 8)}.example.com`)
    await setLimits(server, account, { workflows: 1 })
    const templateId = await insertTemplate(server, account.project.id, { from: `hi@${domain.domain}` })
    const workflow = await insertWorkflow(server, account.project.id, {
      eventName: 'joined',
      steps: { welcome: { type: 'SEND_EMAIL', templateId, config: {} } },
      edges: [['trigger', 'welcome']],
    })
    const first = await createContact(server, account, { data: { name: 'Ann' } })
    const second = await createContact(server, account, { data: { name: 'Bob' } })
    await track(server, account, first.email, 'joined')
    await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'COMPLETED')
    await track(server, account, second.email, 'joined')
    const rows = await executionsWhen(
      server,
      workflow.id,
      (all) => all.length === 2 && all.every((row) => row.status === 'COMPLETED' || row.status === 'FAILED'),
    )
    const failed = rows.find((row) => row.contactId === second.id)
    expect(failed?.status).toBe('FAILED')
    const steps = await stepsOf(server, failed?.id ?? '')
    expect(JSON.stringify(steps)).toContain("The project's monthly workflows email limit is reached")
    expect(await emailCount(server, account.project.id)).toBe(1)
    expect(await usageOf(server, account.project.id, 'workflows')).toBe(1)
  })

  it('inbound mail over the inbound cap gets no email.received event; under it, it does and is counted', async () => {
    const account = await createAccount(server)
    const domain = await addDomain(server, account, `inbox-${account.project.id.slice(0, 8)}.example.com`)
    await server.ctx.db.execute(sql`UPDATE domains SET status = 'VERIFIED' WHERE id = ${domain.id}`)
    await setLimits(server, account, { inbound: 1 })
    const to = `support@${domain.domain}`
    const first = await receiveInboundMessage(server.ctx, 'smtp', inbound(to, `one-${domain.id}`))
    expect(first.projectIds).toEqual([account.project.id])
    const second = await receiveInboundMessage(server.ctx, 'smtp', inbound(to, `two-${domain.id}`))
    expect(second.projectIds).toEqual([])
    expect(await eventsNamed(server, account.project.id, 'email.received')).toHaveLength(1)
    expect(await usageOf(server, account.project.id, 'inbound')).toBe(1)
    // A redelivery of the first message is neither a new event nor counted again.
    await receiveInboundMessage(server.ctx, 'smtp', inbound(to, `one-${domain.id}`))
    expect(await usageOf(server, account.project.id, 'inbound')).toBe(1)
  })
})
