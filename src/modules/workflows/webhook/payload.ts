export type DefaultWebhookPayloadInput = {
  contact: { email: string; subscribed: boolean; data: Record<string, unknown> }
  workflow: { id: string; name: string }
  execution: { id: string; startedAt: Date | string }
  /** The trigger event's payload; `{}` when the execution was not started by an event. */
  event: Record<string, unknown>
}

export type DefaultWebhookPayload = {
  contact: { email: string; subscribed: boolean; data: Record<string, unknown> }
  workflow: { id: string; name: string }
  execution: { id: string; startedAt: string }
  event: Record<string, unknown>
}

/** What a WEBHOOK step without `body` sends (spec, "Default webhook payload"); extra fields are dropped. */
export function defaultWebhookPayload(input: DefaultWebhookPayloadInput): DefaultWebhookPayload {
  const { contact, workflow, execution, event } = input
  return {
    contact: { email: contact.email, subscribed: contact.subscribed, data: contact.data },
    workflow: { id: workflow.id, name: workflow.name },
    execution: {
      id: execution.id,
      startedAt: execution.startedAt instanceof Date ? execution.startedAt.toISOString() : execution.startedAt,
    },
    event,
  }
}
