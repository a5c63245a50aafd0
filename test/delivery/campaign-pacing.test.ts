import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { OutgoingMessage, Transport } from '../../src/mail/transports/transport.js'
import { holdCampaignPace } from '../../src/modules/delivery/pacing.js'
import { enqueueEmails, wakeOutbox } from '../../src/modules/delivery/service.js'
import { enqueue, testEmail } from '../helpers/emails.js'
import { createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const largestWindow = 40
const leastWindow = 3
const campaignSendMs = 1_000

/**
 * A receiving server that takes `campaignSendMs` for each campaign email and `transactionalSendMs` for each
 * transactional one, and counts the campaign emails it holds at once: the campaign's window as the outside sees it.
 */
function slowTransport() {
  const campaignIds = new Set<string>()
  const state = { campaignSending: 0, transactionalSendMs: 0, transactionalSent: 0 }
  const transport: Transport = {
    concurrency: 200,
    async send(message: OutgoingMessage) {
      const campaign = campaignIds.has(message.emailId)
      if (campaign) state.campaignSending++
      // The receiving server's own time: what makes transactional mail wait here, or the campaign's emails last.
      await new Promise((resolve) => setTimeout(resolve, campaign ? campaignSendMs : state.transactionalSendMs))
      if (campaign) state.campaignSending--
      else state.transactionalSent++
      return { providerMessageId: message.messageId }
    },
    close: async () => {},
  }
  return { transport, campaignIds, state }
}

describe('campaign pacing', () => {
  const receiver = slowTransport()
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({
      delivery: {
        transport: receiver.transport,
        maxInFlight: 100,
        maxBulkInFlight: largestWindow,
        batchSize: 20,
        // Only transactional mail's wait paces this campaign: a shared test machine's event loop runs late at random.
        pacing: { minWindow: leastWindow, eventLoopDelayMs: 60_000 },
      },
    })
  })
  afterAll(() => server.close())

  it('gives campaign mail its largest window while transactional mail does not wait, the least while it does, and grows back', async () => {
    const account = await createAccount(server)
    const queueCampaign = async (count: number) => {
      const ids = await server.ctx.db.transaction((tx) =>
        enqueueEmails(
          tx,
          account.project.id,
          Array.from({ length: count }, (_, n) =>
            testEmail({ sourceType: 'CAMPAIGN', to: { email: `r${n}@example.org` } }),
          ),
        ),
      )
      for (const id of ids) receiver.campaignIds.add(id)
      wakeOutbox(server.ctx.pool, 'bulk')
    }
    // Transactional emails answered at once, one after another: the least wait the pacer measures against (the
    // first also starts the compose threads, which takes a while).
    for (let sent = 1; sent <= 5; sent++) {
      await enqueue(server, account.project.id, [testEmail()])
      await vi.waitFor(() => expect(receiver.state.transactionalSent).toBe(sent), { timeout: 30_000, interval: 10 })
    }
    await queueCampaign(4_000)
    await vi.waitFor(() => expect(receiver.state.campaignSending).toBe(largestWindow), {
      timeout: 30_000,
      interval: 20,
    })

    // Transactional mail now waits 300 ms at the receiving server, far beyond the least wait and its allowance.
    receiver.state.transactionalSendMs = 300
    let waiting = true
    const transactional = (async () => {
      while (waiting) {
        await enqueue(server, account.project.id, [testEmail()])
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    })()
    await vi.waitFor(() => expect(receiver.state.campaignSending).toBeLessThanOrEqual(leastWindow), {
      timeout: 30_000,
      interval: 20,
    })
    waiting = false
    await transactional

    // Answered at once again: the window grows back to its largest.
    receiver.state.transactionalSendMs = 0
    await vi.waitFor(() => expect(receiver.state.campaignSending).toBe(largestWindow), {
      timeout: 30_000,
      interval: 20,
    })

    // While this process queues an audience, the campaign keeps to its least window whatever the waits.
    const release = holdCampaignPace(server.ctx.pool)
    try {
      await vi.waitFor(() => expect(receiver.state.campaignSending).toBeLessThanOrEqual(leastWindow), {
        timeout: 30_000,
        interval: 20,
      })
    } finally {
      release()
    }
  }, 120_000)
})
