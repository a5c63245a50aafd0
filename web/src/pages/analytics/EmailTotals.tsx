import type { Timeseries } from '../../api/types'
import { StatCards } from '../../components/StatCards'
import { shownMetrics } from './metrics'

/** The period's totals as the API counts them: unique opens and clicks by people, captured mail as captured. */
export function EmailTotals({ totals }: { totals: Timeseries['totals'] }) {
  return (
    <StatCards
      label="Email totals"
      figures={shownMetrics(totals).map((metric) => ({ label: metric.label, value: totals[metric.key] }))}
    />
  )
}
