import { Badge } from '@mantine/core'
import type { EmailStatus, EmailSummary } from '../../api/types'

/** Dark shades only: the badges' white text on them passes the contrast check. */
const statusColor: Record<EmailStatus, string> = {
  QUEUED: 'gray.7',
  SENDING: 'blue.9',
  SENT: 'indigo.8',
  FAILED: 'red.9',
  DELIVERED: 'teal.9',
  BOUNCED: 'red.9',
  COMPLAINED: 'red.9',
  OPENED: 'green.9',
  CLICKED: 'green.9',
}

export const emailStatuses = Object.keys(statusColor) as EmailStatus[]

export function EmailStatusBadge({ status }: { status: EmailStatus }) {
  return (
    <Badge color={statusColor[status]} miw="max-content">
      {status}
    </Badge>
  )
}

export const sourceLabels: Record<EmailSummary['sourceType'], string> = {
  TRANSACTIONAL: 'Transactional',
  CAMPAIGN: 'Campaign',
  WORKFLOW: 'Workflow',
}

/** Relayed mail was taken over SMTP submission; the rest came through the API, a campaign or a workflow. */
export function sourceOf(email: Pick<EmailSummary, 'sourceType' | 'relayed'>): string {
  return email.relayed ? `${sourceLabels[email.sourceType]}, relayed over SMTP` : sourceLabels[email.sourceType]
}

export function RelayedBadge() {
  return (
    <Badge color="grape.9" variant="filled" title="Taken over SMTP submission and sent as the client wrote it">
      Relayed
    </Badge>
  )
}

/** "1.2 kB" for a size in bytes. */
export function sizeOf(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`
  return `${(bytes / 1_000_000).toFixed(1)} MB`
}
