import { Badge, Code, Group } from '@mantine/core'
import type { Webhook, WebhookAttempt, WebhookMessage, WebhookMessageStatus } from '../../api/types'

/** Dark shades only: the badges' white text on them passes the contrast check. */
const messageStatus: Record<WebhookMessageStatus, { label: string; color: string }> = {
  PENDING: { label: 'Pending', color: 'gray.7' },
  DELIVERED: { label: 'Delivered', color: 'teal.9' },
  FAILED: { label: 'Failed', color: 'red.9' },
}

export const messageStatuses = Object.entries(messageStatus).map(([value, { label }]) => ({ value, label }))

export function MessageStatusBadge({ message }: { message: Pick<WebhookMessage, 'status' | 'attemptCount'> }) {
  const { label, color } = messageStatus[message.status]
  // A pending message that has been tried already is being retried: say so, it is what a user looks for.
  const retrying = message.status === 'PENDING' && message.attemptCount > 0
  return (
    <Badge color={retrying ? 'blue.9' : color} miw="max-content">
      {retrying ? 'Retrying' : label}
    </Badge>
  )
}

/** Enabled, disabled by hand, or disabled by Mailroom after failing for days. */
export function EndpointStateBadge({ webhook }: { webhook: Pick<Webhook, 'enabled' | 'disabledReason'> }) {
  if (webhook.enabled) {
    return (
      <Badge color="teal.9" miw="max-content">
        Enabled
      </Badge>
    )
  }
  if (webhook.disabledReason === 'failing') {
    return (
      <Badge color="red.9" miw="max-content">
        Disabled: failing
      </Badge>
    )
  }
  return (
    <Badge color="gray.7" miw="max-content">
      Disabled
    </Badge>
  )
}

export function EventTypeList({ eventTypes }: { eventTypes: string[] }) {
  return (
    <Group gap={4}>
      {eventTypes.map((eventType) => (
        <Code key={eventType}>{eventType}</Code>
      ))}
    </Group>
  )
}

/** What an attempt got back: the status code, or why there was no answer. */
export function attemptOutcome(attempt: Pick<WebhookAttempt, 'responseStatus' | 'error'>): string {
  if (attempt.responseStatus !== null) return `HTTP ${attempt.responseStatus}`
  return `No answer: ${attempt.error ?? 'the request failed'}`
}

/** The browser's local date and time, to the second: attempts a few seconds apart must read apart. */
export const exactTime = (at: string) =>
  new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })
