import type { TimelineEntry } from '../../api/types'

type Kind = TimelineEntry['kind']

/** What each kind of entry is called on screen. */
const kindLabels: Record<Kind, string> = {
  accepted: 'Accepted',
  sent: 'Sent',
  deferred: 'Deferred',
  failed: 'Failed',
  delivered: 'Delivered',
  bounced: 'Bounced',
  complained: 'Spam complaint',
  opened: 'Opened',
  clicked: 'Clicked',
  unsubscribed: 'Unsubscribed',
}

export type EntryTone = 'good' | 'bad' | 'waiting' | 'neutral'

const tones: Record<Kind, EntryTone> = {
  accepted: 'neutral',
  sent: 'good',
  deferred: 'waiting',
  failed: 'bad',
  delivered: 'good',
  bounced: 'bad',
  complained: 'bad',
  opened: 'good',
  clicked: 'good',
  unsubscribed: 'neutral',
}

/** One line of an entry's details: a label and its value, or a time (shown as one). */
export type DetailLine = { label: string; value: string; time?: boolean }

export type DescribedEntry = { title: string; tone: EntryTone; summary?: string; lines: DetailLine[] }

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined

const evidenceSources: Record<string, string> = {
  smtp: 'the receiving server’s reply',
  provider: 'the provider’s report',
  tracking: 'the tracking pixel or link',
}

const sourceWords: Record<string, string> = {
  TRANSACTIONAL: 'a transactional send',
  CAMPAIGN: 'a campaign',
  WORKFLOW: 'a workflow',
}

const unsubscribeWays: Record<string, string> = {
  link: 'through the unsubscribe link',
  bounce: 'after a permanent bounce',
  complaint: 'after a spam complaint',
}

/** The known detail keys, labelled, in the order shown; anything else a newer server adds follows as it is. */
const knownKeys: [string, string][] = [
  ['attempt', 'Attempt'],
  ['code', 'SMTP code'],
  ['response', 'Server reply'],
  ['error', 'Error'],
  ['providerMessageId', 'Provider message id'],
  ['bounceType', 'Bounce type'],
  ['bounceSubType', 'Bounce subtype'],
  ['diagnostic', 'Diagnostic'],
  ['complaintFeedbackType', 'Feedback type'],
  ['link', 'Link'],
  ['reason', 'Reason'],
  ['userAgent', 'User agent'],
  ['source', 'Evidence'],
]
/** Keys said by the title or summary instead, or not worth a line. */
const hiddenKeys = new Set([
  'machine',
  'fromRecord',
  'via',
  'sourceType',
  'relayed',
  'campaignId',
  'workflowId',
  'bounce',
  'nextAttemptAt',
  'claimedAt',
])

function linesOf(detail: Record<string, unknown>): DetailLine[] {
  const lines: DetailLine[] = []
  for (const [key, label] of knownKeys) {
    const value = text(detail[key])
    if (value === undefined) continue
    lines.push({ label, value: key === 'source' ? (evidenceSources[value] ?? value) : value })
  }
  const known = new Set(knownKeys.map(([key]) => key))
  for (const [key, value] of Object.entries(detail)) {
    if (known.has(key) || hiddenKeys.has(key) || value === undefined || value === null) continue
    lines.push({ label: key, value: typeof value === 'string' ? value : JSON.stringify(value) })
  }
  return lines
}

function summaryOf(entry: TimelineEntry): string | undefined {
  const { detail } = entry
  switch (entry.kind) {
    case 'accepted': {
      const from = sourceWords[text(detail.sourceType) ?? ''] ?? 'a send'
      return detail.relayed === true ? `From ${from}, relayed over SMTP` : `From ${from}`
    }
    case 'sent':
      return 'Handed over to the receiving server'
    case 'deferred':
      return 'Refused for now, to be tried again'
    case 'failed':
      return detail.bounce === true ? 'Refused by the receiving server; not tried again' : 'Given up on'
    case 'opened':
    case 'clicked':
      return detail.machine === true ? 'By a machine (a privacy proxy or a link scanner), not counted' : 'By a person'
    case 'unsubscribed':
      return unsubscribeWays[text(detail.via) ?? '']
    default:
      return undefined
  }
}

/** An entry as the timeline shows it: a title, a sentence, and the transport's or provider's evidence. */
export function describeEntry(entry: TimelineEntry): DescribedEntry {
  const machine = (entry.kind === 'opened' || entry.kind === 'clicked') && entry.detail.machine === true
  const title = machine ? `${kindLabels[entry.kind]} by a machine` : kindLabels[entry.kind]
  const lines = linesOf(entry.detail)
  const next = text(entry.detail.nextAttemptAt)
  if (next) lines.push({ label: 'Next attempt', value: next, time: true })
  if (entry.detail.fromRecord === true) lines.push({ label: 'Recorded', value: 'from the email’s record' })
  return { title, tone: machine ? 'neutral' : tones[entry.kind], summary: summaryOf(entry), lines }
}
