import type { EventStats } from '../../api/types'
import { StatCards } from '../../components/StatCards'

export function EventStatsPanel({ stats }: { stats: EventStats }) {
  return (
    <StatCards
      label="Tracked events"
      figures={[
        { label: 'All events', value: stats.total },
        { label: 'Last 24 hours', value: stats.last24Hours },
        { label: 'Last 7 days', value: stats.last7Days },
        { label: 'Last 30 days', value: stats.last30Days },
        { label: 'Contacts tracked', value: stats.uniqueContacts },
      ]}
    />
  )
}
