import { Group, SegmentedControl, Stack, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import { campaignQueries } from '../../api/campaigns'
import { useProject } from '../../api/project-context'
import type { CampaignTimeseries } from '../../api/types'
import { useChartColors } from '../../components/chart-colors'
import { shownMetrics } from '../../components/email-metrics'
import { QueryState } from '../../components/states'

type Activity = CampaignTimeseries['data'][number]['activity']
type Granularity = CampaignTimeseries['granularity']

type Row = { bucket: string } & Record<Activity, number>

/** One row per bucket with every activity's count, the shape recharts plots. */
function rowsOf(timeseries: CampaignTimeseries): Row[] {
  const rows = new Map<string, Row>()
  for (const point of timeseries.data) {
    const row = rows.get(point.bucket) ?? {
      bucket: point.bucket,
      sent: 0,
      captured: 0,
      delivered: 0,
      opened: 0,
      clicked: 0,
      bounced: 0,
    }
    row[point.activity] = point.count
    rows.set(point.bucket, row)
  }
  return [...rows.values()]
}

/** How many of the campaign's emails had the activity, over every bucket. */
function countOf(timeseries: CampaignTimeseries, activity: Activity): number {
  return timeseries.data.reduce((sum, point) => sum + (point.activity === activity ? point.count : 0), 0)
}

function formatBucket(bucket: string, granularity: Granularity): string {
  const date = new Date(bucket)
  return granularity === 'day'
    ? date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
    : date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
}

/** Sent, captured or delivered, opened, clicked and bounced emails per hour or day, from the campaign's timeseries. */
export function CampaignChart({ campaignId, version }: { campaignId: string; version: string }) {
  const { project } = useProject()
  const [granularity, setGranularity] = useState<Granularity>('hour')
  const colors = useChartColors()
  const timeseries = useQuery(campaignQueries.timeseries(project.id, campaignId, granularity, version))
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Text size="sm" fw={600} id="campaign-chart-title">
          Activity over time
        </Text>
        <SegmentedControl
          size="xs"
          aria-label="Chart buckets"
          value={granularity}
          onChange={(value) => setGranularity(value as Granularity)}
          data={[
            { value: 'hour', label: 'By hour' },
            { value: 'day', label: 'By day' },
          ]}
        />
      </Group>
      <QueryState query={timeseries} label="Loading activity">
        {(result) =>
          result.data.length === 0 ? (
            <Text size="sm" c="dimmed">
              No activity yet.
            </Text>
          ) : (
            <figure aria-labelledby="campaign-chart-title" style={{ margin: 0, height: 280 }}>
              <ResponsiveContainer width="100%" height="100%">
                <BarChart data={rowsOf(result)} accessibilityLayer>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} stroke={colors.grid} />
                  <XAxis
                    dataKey="bucket"
                    tick={{ fill: colors.tick }}
                    tickFormatter={(bucket: string) => formatBucket(bucket, result.granularity)}
                  />
                  <YAxis allowDecimals={false} tick={{ fill: colors.tick }} />
                  <Tooltip
                    {...colors.tooltip}
                    labelFormatter={(bucket) => formatBucket(String(bucket), result.granularity)}
                  />
                  <Legend />
                  {shownMetrics((key) => countOf(result, key)).map((item) => (
                    // Refetched every few seconds while sending: bars that grew in from zero each time would flicker.
                    <Bar
                      key={item.key}
                      dataKey={item.key}
                      name={item.label}
                      fill={item.color[colors.scheme]}
                      isAnimationActive={false}
                    />
                  ))}
                </BarChart>
              </ResponsiveContainer>
            </figure>
          )
        }
      </QueryState>
    </Stack>
  )
}
