import type { Timeseries } from '../../api/types'
import { StatCards } from '../../components/StatCards'
import { metrics } from './metrics'

/** The period's totals as the API counts them: unique opens and clicks by people. */
export function EmailTotals({ totals }: { totals: Timeseries['totals'] }) {
  return (
    <StatCards
      label="Email totals"
      figures={metrics.map((metric) => ({ label: metric.label, value: totals[metric.key] }))}
    />
  )
}
