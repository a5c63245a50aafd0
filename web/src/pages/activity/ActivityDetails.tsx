import { Anchor, Badge, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { Link, useLocation } from 'react-router'
import type { Activity } from '../../api/types'
import { activityColor, activityLabel } from './labels'

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined

const valueLengthChars = 40
const shownFields = 3

/** A few of an event's fields as `key: value`, each value cut short: the sentence stays one glance long. */
function fieldsOf(data: Record<string, unknown>): string {
  const entries = Object.entries(data)
  const shown = entries.slice(0, shownFields).map(([key, value]) => {
    const written = typeof value === 'string' ? value : JSON.stringify(value)
    return `${key}: ${written.length > valueLengthChars ? `${written.slice(0, valueLengthChars - 1)}…` : written}`
  })
  const more = entries.length - shown.length
  return shown.join(', ') + (more > 0 ? ` and ${more} more` : '')
}

/**
 * The email's subject, linked to its story (the email's page with its timeline); an entry without an email id (an
 * older event) links to its campaign, or else its contact's page.
 */
function EmailSubject({ entry }: { entry: Activity }) {
  const here = useLocation().pathname
  const subject = `“${text(entry.data.subject) ?? 'an email'}”`
  const emailId = text(entry.data.emailId)
  const campaignId = text(entry.data.campaignId)
  const [to, title] = emailId
    ? [`/emails/${emailId}`, 'This email’s timeline']
    : campaignId
      ? [`/campaigns/${campaignId}`, 'The campaign it was sent for']
      : entry.contact
        ? [`/contacts/${entry.contact.id}`, 'The contact']
        : [undefined, undefined]
  // On the contact's own page a link to it would lead nowhere new.
  if (!to || to === here) return subject
  return (
    <Anchor component={Link} to={to} size="sm" title={title}>
      {subject}
    </Anchor>
  )
}

/** The workflow's name, linked to this run of it (the execution, with its step history). */
function WorkflowRun({ entry }: { entry: Activity }) {
  const name = text(entry.data.workflowName) ?? 'a workflow'
  const workflowId = text(entry.data.workflowId)
  const executionId = text(entry.data.executionId)
  if (!workflowId || !executionId) return name
  return (
    <Anchor component={Link} to={`/workflows/${workflowId}/executions/${executionId}`} size="sm" title="This execution">
      {name}
    </Anchor>
  )
}

function SegmentName({ entry }: { entry: Activity }) {
  const name = text(entry.data.segmentName) ?? 'a segment'
  const segmentId = text(entry.data.segmentId)
  if (!segmentId) return name
  return (
    <Anchor component={Link} to={`/segments/${segmentId}`} size="sm">
      {name}
    </Anchor>
  )
}

const unsubscribeReasons: Record<string, string> = {
  bounce: ' after a permanent bounce',
  complaint: ' after a spam complaint',
}

function sentenceOf(entry: Activity): ReactNode {
  const { data } = entry
  const subject = <EmailSubject entry={entry} />
  const link = text(data.link)
  const reason = text(data.reason)
  switch (entry.type) {
    case 'email.sent':
      return <>Sent {subject}</>
    case 'email.delivered':
      return <>{subject} was delivered</>
    case 'email.opened':
      return <>Opened {subject}</>
    case 'email.clicked':
      return (
        <>
          Clicked {link ?? 'a link'} in {subject}
        </>
      )
    case 'email.machine_opened':
      return <>{subject} was opened by a machine (a privacy proxy or scanner), not counted as an open</>
    case 'email.machine_clicked':
      return (
        <>
          A link scanner followed {link ?? 'a link'} in {subject}, not counted as a click
        </>
      )
    case 'email.bounced':
      return (
        <>
          {subject} bounced{data.bounceType === 'Permanent' ? ' permanently' : data.bounceType ? ' temporarily' : ''}
        </>
      )
    case 'email.complaint':
      return <>Marked {subject} as spam</>
    case 'email.received':
      return (
        <>
          Received {subject}
          {text(data.from) ? ` from ${text(data.from)}` : ''}
        </>
      )
    case 'contact.subscribed':
      return 'Subscribed to marketing email'
    case 'contact.unsubscribed':
      return `Unsubscribed from marketing email${reason ? (unsubscribeReasons[reason] ?? ` (${reason})`) : ''}`
    case 'segment.entry':
      return (
        <>
          Joined the segment <SegmentName entry={entry} />
        </>
      )
    case 'segment.exit':
      return (
        <>
          Left the segment <SegmentName entry={entry} />
        </>
      )
    case 'workflow.started':
      return (
        <>
          Started the workflow <WorkflowRun entry={entry} />
        </>
      )
    case 'workflow.completed':
      return data.status === 'EXITED' ? (
        <>
          Left the workflow <WorkflowRun entry={entry} />
          {reason ? `: ${reason}` : ''}
        </>
      ) : (
        <>
          Finished the workflow <WorkflowRun entry={entry} />
        </>
      )
    case 'workflow.failed':
      return (
        <>
          The workflow <WorkflowRun entry={entry} /> failed{reason ? `: ${reason}` : ''}
        </>
      )
    case 'event.triggered':
      return (
        <>
          Tracked <EventName name={entry.name} />
          {Object.keys(data).length > 0 ? ` with ${fieldsOf(data)}` : ''}
        </>
      )
    default:
      return (
        <>
          <EventName name={entry.name} />
          {Object.keys(data).length > 0 ? `: ${fieldsOf(data)}` : ''}
        </>
      )
  }
}

/** An event's name, in full. */
function EventName({ name }: { name: string }) {
  return (
    <Text span inherit fw={600}>
      {name}
    </Text>
  )
}

/** What happened, in a short sentence, with a link to where to read more. Long names wrap; they are never cut. */
export function ActivityDetails({ entry }: { entry: Activity }) {
  return (
    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
      {sentenceOf(entry)}
    </Text>
  )
}

/** The type's human label; never shortened to "email.s…" however narrow its column. */
export function ActivityBadge({ type }: { type: string }) {
  return (
    <Badge color={activityColor(type)} tt="none" miw="max-content">
      {activityLabel(type)}
    </Badge>
  )
}
