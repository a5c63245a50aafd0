import type { Executor } from '../../db/client.js'
import { capturedMessages } from '../../db/schema/index.js'
import type { Transport } from './transport.js'

/** Keeps every message in the local mailbox (`GET /mailbox`) instead of sending it. */
export function createCaptureTransport(db: Executor): Transport {
  return {
    async send(message) {
      await db.insert(capturedMessages).values({
        projectId: message.projectId,
        emailId: message.emailId,
        campaignId: message.campaignId ?? null,
        fromEmail: message.envelope.from,
        toEmails: message.envelope.to,
        subject: message.subject,
        raw: message.raw,
      })
      return { providerMessageId: message.messageId }
    },
    async close() {},
  }
}
