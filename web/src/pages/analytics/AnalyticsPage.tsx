import { Group, Select, SimpleGrid, Stack, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { analyticsQueries } from '../../api/analytics'
import { useProject } from '../../api/project-context'
import { PageHeader, QueryState } from '../../components/states'
import { EmailTotals } from './EmailTotals'
import { EventStatsPanel } from './EventStatsPanel'
import { TimeseriesChart } from './TimeseriesChart'
import { TopCampaignsPanel } from './TopCampaignsPanel'
import { TopEventsPanel } from './TopEventsPanel'

const ranges = {
  '1': { label: 'Last 24 hours', granularity: 'hour' },
  '7': { label: 'Last 7 days', granularity: 'day' },
  '30': { label: 'Last 30 days', granularity: 'day' },
  '90': { label: 'Last 90 days', granularity: 'day' },
} as const
type Range = keyof typeof ranges

export function AnalyticsPage() {
  const { project } = useProject()
  const [range, setRange] = useState<Range>('30')
  const { granularity } = ranges[range]
  // Fixed per choice of range, so the query key (and the numbers) stay put until the range changes.
  const from = useMemo(() => new Date(Date.now() - Number(range) * 24 * 3600_000).toISOString(), [range])

  const series = useQuery(analyticsQueries.timeseries(project.id, from, granularity))
  const events = useQuery(analyticsQueries.topEvents(project.id, from))
  const stats = useQuery(analyticsQueries.eventStats(project.id))

  return (
    <Stack gap="lg">
      <PageHeader title="Analytics">
        <Group gap="xs" align="center">
          <Select
            label="Period"
            value={range}
            allowDeselect={false}
            onChange={(value) => value && setRange(value as Range)}
            data={Object.entries(ranges).map(([value, { label }]) => ({ value, label }))}
            w={180}
          />
        </Group>
      </PageHeader>
      <section aria-labelledby="emails-heading">
        <Text component="h2" fw={600} size="lg" mb="xs" id="emails-heading">
          Emails
        </Text>
        <QueryState query={series} label="Loading email metrics">
          {(data) => (
            <Stack gap="md">
              <EmailTotals totals={data.totals} />
              <TimeseriesChart series={data} />
            </Stack>
          )}
        </QueryState>
      </section>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <TopCampaignsPanel />
        <section aria-labelledby="top-events-heading">
          <Text component="h2" fw={600} size="lg" mb="xs" id="top-events-heading">
            Top events
          </Text>
          <QueryState query={events} label="Loading top events">
            {(data) => <TopEventsPanel events={data.events} />}
          </QueryState>
        </section>
      </SimpleGrid>
      <section aria-labelledby="event-stats-heading">
        <Text component="h2" fw={600} size="lg" mb="xs" id="event-stats-heading">
          Tracked events, all time
        </Text>
        <QueryState query={stats} label="Loading event statistics">
          {(data) => <EventStatsPanel stats={data} />}
        </QueryState>
      </section>
    </Stack>
  )
}
