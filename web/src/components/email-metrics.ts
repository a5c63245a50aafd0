import type { Timeseries } from '../../api/types'
import type { SchemeColor } from '../../components/chart-colors'

/**
 * The series the charts draw, with colours for 3:1 against the page (WCAG non-text contrast) and 4.5:1 for the
 * legend's text: Mantine's shades 8–9 on white, shades 3–4 on the dark background.
 */
export const metrics = [
  { key: 'sent', label: 'Sent', color: { light: '#364fc7', dark: '#91a7ff' } },
  { key: 'captured', label: 'Captured', color: { light: '#5f3dc4', dark: '#b197fc' } },
  { key: 'delivered', label: 'Delivered', color: { light: '#2b8a3e', dark: '#69db7c' } },
  { key: 'opened', label: 'Opened', color: { light: '#e8590c', dark: '#ffa94d' } },
  { key: 'clicked', label: 'Clicked', color: { light: '#862e9c', dark: '#e599f7' } },
  { key: 'bounced', label: 'Bounced', color: { light: '#c92a2a', dark: '#ff8787' } },
] as const satisfies readonly { key: string; label: string; color: SchemeColor }[]

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
