import type { Timeseries } from '../../api/types'

/** The series the charts draw, with colours dark enough for 3:1 against white (WCAG non-text contrast). */
export const metrics = [
  { key: 'sent', label: 'Sent', color: '#364fc7' },
  { key: 'captured', label: 'Captured', color: '#5f3dc4' },
  { key: 'delivered', label: 'Delivered', color: '#2b8a3e' },
  { key: 'opened', label: 'Opened', color: '#e8590c' },
  { key: 'clicked', label: 'Clicked', color: '#862e9c' },
  { key: 'bounced', label: 'Bounced', color: '#c92a2a' },
] as const

/**
 * Captured mail (MAIL_TRANSPORT=capture) is never delivered: its metric shows only when there is some, and then a
 * delivered count of nothing is left out rather than shown as a failure to deliver.
 */
export function shownMetrics(totals: Timeseries['totals']) {
  return metrics.filter((metric) => {
    if (metric.key === 'captured') return totals.captured > 0
    if (metric.key === 'delivered') return totals.delivered > 0 || totals.captured === 0
    return true
  })
}
