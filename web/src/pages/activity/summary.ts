import type { Activity } from '../../api/types'

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined

/** One line that tells entries apart: the email's subject and what happened to it, a segment, or the event data. */
export function summaryOf(entry: Activity): string {
  const data = entry.data
  if (entry.type.startsWith('email.')) {
    const parts = [text(data.subject) && `“${text(data.subject)}”`]
    if (entry.type === 'email.clicked' || entry.type === 'email.machine_clicked') parts.push(text(data.link))
    if (entry.type === 'email.bounced') parts.push(text(data.bounceType) && `${text(data.bounceType)} bounce`)
    if (entry.type === 'email.received') parts.push(text(data.from) && `from ${text(data.from)}`)
    return parts.filter(Boolean).join(' · ') || '—'
  }
  if (entry.type.startsWith('segment.')) return text(data.segmentName) ?? '—'
  if (entry.type === 'event.triggered') {
    const body = Object.keys(data).length ? ` ${JSON.stringify(data)}` : ''
    return `${entry.name}${body}`
  }
  if (text(data.reason)) return `Reason: ${text(data.reason)}`
  return Object.keys(data).length ? JSON.stringify(data) : '—'
}
