import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../../helpers/domains.js'
import { type Account, createAccount, createContact } from '../../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../../helpers/smtp-sink.js'
import { insertTemplate, insertWorkflow, track } from './fixtures.js'

describe('an email queued by a workflow step', () => {
  let sink: SmtpSink
  let env: ServerWithDns
  let account: Account
  let from: string

  beforeAll(async () => {
    sink = await startSmtpSink()
    // The outbox polls once a minute: only a wake after the step's batch commits delivers within the test.
    env = await startServerWithDns({ config: { smtpUrl: sink.url }, delivery: { pollIntervalMs: 60_000 } })
    account = await createAccount(env.server)
    const domain = await addVerifiedDomain(env.server, env.dns, account, `wake-${process.pid}.mailroom.test`)
    from = `hello@${domain.domain}`
  })
  afterAll(async () => {
    await env.close()
    await sink.close()
  })

  it('reaches the SMTP server within seconds of the event, not at the outbox’s next poll', async () => {
    const { server } = env
    const templateId = await insertTemplate(server, account.project.id, { from })
    await insertWorkflow(server, account.project.id, {
      eventName: 'ordered',
      steps: { receipt: { type: 'SEND_EMAIL', templateId, config: {} } },
      edges: [['trigger', 'receipt']],
    })
    const contact = await createContact(server, account, { data: { name: 'Ann' } })
    const trackedAt = Date.now()
    await track(server, account, contact.email, 'ordered', {})

    const [message] = await sink.waitForMessages(1, 10_000)
    expect(message?.envelope.to).toEqual([contact.email])
    expect((message?.receivedAt ?? Number.POSITIVE_INFINITY) - trackedAt).toBeLessThan(10_000)
  })
})
