import type { Timeseries } from '../../api/types'
import { shownMetrics } from '../../components/email-metrics'
import { StatCards } from '../../components/StatCards'

/** The period's totals as the API counts them: unique opens and clicks by people, captured mail as captured. */
export function EmailTotals({ totals }: { totals: Timeseries['totals'] }) {
  return (
    <StatCards
      label="Email totals"
      figures={shownMetrics((key) => totals[key]).map((metric) => ({ label: metric.label, value: totals[metric.key] }))}
    />
  )
}
