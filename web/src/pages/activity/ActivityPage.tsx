import { Group, MultiSelect, Select, Text } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { activityQueries } from '../../api/activity'
import { useProject } from '../../api/project-context'
import { QueryPager } from '../../components/QueryPager'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { useCursors } from '../../components/use-cursors'
import { ActivityFeed } from './ActivityFeed'
import { activityLabel } from './labels'

const periods = { all: 'Any time', '1': 'Last 24 hours', '7': 'Last 7 days', '30': 'Last 30 days' } as const
type Period = keyof typeof periods

function startOf(period: Period): string | undefined {
  if (period === 'all') return undefined
  return new Date(Date.now() - Number(period) * 24 * 3600_000).toISOString()
}

export function ActivityPage() {
  const { project } = useProject()
  const [types, setTypes] = useState<string[]>([])
  const [period, setPeriod] = useState<Period>('all')
  const pages = useCursors()
  // Fixed when the period is chosen, so paging does not shift the window (and the query key stays stable).
  const startDate = useMemo(() => startOf(period), [period])

  const known = useQuery(activityQueries.types(project.id))
  const feed = useQuery({
    ...activityQueries.feed(project.id, { limit: 25, types: types.join(','), startDate, cursor: pages.cursor }),
    placeholderData: keepPreviousData,
  })
  const filtered = types.length > 0 || period !== 'all'

  return (
    <>
      <PageHeader title="Activity">
        {feed.data && !pages.cursor && (
          <Text size="sm" c="dimmed" aria-live="polite">
            {feed.data.total.toLocaleString()} {feed.data.total === 1 ? 'entry' : 'entries'}
          </Text>
        )}
      </PageHeader>
      <Group mb="md" align="flex-end">
        <MultiSelect
          label="Types"
          placeholder={types.length ? undefined : 'Every type'}
          data={(known.data?.data ?? []).map((type) => ({ value: type, label: activityLabel(type) }))}
          value={types}
          onChange={(value) => {
            setTypes(value)
            pages.restart()
          }}
          clearable
          searchable
          nothingFoundMessage="No activity of that type yet"
          w={{ base: '100%', xs: 420 }}
        />
        <Select
          label="Period"
          value={period}
          allowDeselect={false}
          onChange={(value) => {
            if (!value) return
            setPeriod(value as Period)
            pages.restart()
          }}
          data={Object.entries(periods).map(([value, label]) => ({ value, label }))}
          w={200}
        />
      </Group>
      <QueryState query={feed} label="Loading activity">
        {(page) =>
          page.data.length === 0 && pages.page === 1 ? (
            <EmptyState title={filtered ? 'No activity matches' : 'No activity yet'}>
              {filtered
                ? 'Try other types or a longer period.'
                : 'Sends, deliveries, opens, clicks, bounces and tracked events appear here as they happen.'}
            </EmptyState>
          ) : (
            <ActivityFeed entries={page.data} label="Activity" busy={feed.isFetching} />
          )
        }
      </QueryState>
      <QueryPager pages={pages} query={feed} />
    </>
  )
}
