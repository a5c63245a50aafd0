import type { SchemeColor } from './chart-colors'

/**
 * The email series the analytics and campaign charts draw. Their tooltips and legends write each name in its
 * colour, so each is 4.5:1 or more against the page: Mantine's shades 8–9 on white, 3–4 on the dark background.
 */
const metrics = [
  { key: 'sent', label: 'Sent', color: { light: '#343a40', dark: '#ced4da' } },
  { key: 'captured', label: 'Captured', color: { light: '#5f3dc4', dark: '#b197fc' } },
  { key: 'delivered', label: 'Delivered', color: { light: '#1864ab', dark: '#4dabf7' } },
  { key: 'opened', label: 'Opened', color: { light: '#087f5b', dark: '#38d9a9' } },
  { key: 'clicked', label: 'Clicked', color: { light: '#862e9c', dark: '#e599f7' } },
  { key: 'bounced', label: 'Bounced', color: { light: '#c92a2a', dark: '#ff8787' } },
] as const satisfies readonly { key: string; label: string; color: SchemeColor }[]

export type MetricKey = (typeof metrics)[number]['key']

/**
 * Captured mail (MAIL_TRANSPORT=capture) is never delivered: its metric shows only when there is some, and then a
 * delivered count of nothing is left out rather than shown as a failure to deliver.
 */
export function shownMetrics(countOf: (key: MetricKey) => number) {
  return metrics.filter((metric) => {
    if (metric.key === 'captured') return countOf('captured') > 0
    if (metric.key === 'delivered') return countOf('delivered') > 0 || countOf('captured') === 0
    return true
  })
}
