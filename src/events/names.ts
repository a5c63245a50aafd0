/** Event names the service emits itself; /v1/track refuses them (spec "Internal events"). */
export const contactSubscribedEvent = 'contact.subscribed'
export const contactUnsubscribedEvent = 'contact.unsubscribed'

const reservedPatterns = [
  /^email\./,
  /^billing\./,
  /^contact\.(un)?subscribed$/,
  /^segment\.[^.]+\.(entry|exit)$/,
  /^workflow\./,
  // A tracked `webhook.disabled` or `campaign.scheduled` would reach the project's webhook endpoints as if
  // Mailroom had sent it.
  /^webhook\./,
  /^campaign\.scheduled$/,
]

/** What workflow executions record in the event log (the activity feed); they start no workflow. */
export const workflowEventNames = {
  started: 'workflow.started',
  completed: 'workflow.completed',
  failed: 'workflow.failed',
} as const

export function isReservedEventName(name: string): boolean {
  const lower = name.toLowerCase()
  return reservedPatterns.some((pattern) => pattern.test(lower))
}

export function subscriptionEventName(subscribed: boolean): string {
  return subscribed ? contactSubscribedEvent : contactUnsubscribedEvent
}
