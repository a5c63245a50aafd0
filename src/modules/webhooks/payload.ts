/**
 * The JSON body of a message, the same on every attempt: the event type, when it happened, and under `data` the
 * `event` object the spec defines for the workflow webhook payload, plus `emailId` for events about one email.
 */
export type WebhookPayload = {
  type: string
  timestamp: string
  data: { event: Record<string, unknown>; emailId?: string }
}

export function webhookPayload(message: {
  eventType: string
  createdAt: Date
  data: Record<string, unknown>
}): WebhookPayload {
  const emailId = message.data.emailId
  return {
    type: message.eventType,
    timestamp: message.createdAt.toISOString(),
    data: { event: message.data, ...(typeof emailId === 'string' && { emailId }) },
  }
}
