import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createContact } from '../../helpers/factories.js'
import { insertTemplate, insertWorkflow, type MailingServer, startMailingServer, track } from './fixtures.js'

describe('an email queued by a workflow step', () => {
  let mailing: MailingServer

  beforeAll(async () => {
    // The outbox polls once a minute: only a wake after the step's batch commits delivers within the test.
    mailing = await startMailingServer('wake', { delivery: { pollIntervalMs: 60_000 } })
  })
  afterAll(() => mailing.close())

  it('reaches the SMTP server within seconds of the event, not at the outbox’s next poll', async () => {
    const { env, account, from, sink } = mailing
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
