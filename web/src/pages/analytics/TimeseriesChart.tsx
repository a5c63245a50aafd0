import { Paper, Table, Text } from '@mantine/core'
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { Timeseries } from '../../api/types'
import { useChartColors } from '../../components/chart-colors'
import { shownMetrics } from '../../components/email-metrics'
import { TableScroll } from '../../components/TableFrame'

function bucketLabel(bucket: string, granularity: Timeseries['granularity']): string {
  const date = new Date(bucket)
  return granularity === 'hour'
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
}

/** Sent, captured or delivered, opened, clicked and bounced per bucket; the same numbers in a table for screen readers. */
export function TimeseriesChart({ series }: { series: Timeseries }) {
  const rows = series.data.map((point) => ({ ...point, label: bucketLabel(point.bucket, series.granularity) }))
  const metrics = shownMetrics((key) => series.totals[key])
  const colors = useChartColors()
  return (
    <Paper withBorder p="sm">
      <figure style={{ margin: 0 }} aria-label={`Emails per ${series.granularity}`}>
        <div style={{ height: 300 }}>
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke={colors.grid} />
              <XAxis dataKey="label" tick={{ fontSize: 12, fill: colors.tick }} minTickGap={16} />
              <YAxis allowDecimals={false} tick={{ fontSize: 12, fill: colors.tick }} width={48} />
              <Tooltip {...colors.tooltip} />
              <Legend />
              {metrics.map((metric) => (
                <Line
                  key={metric.key}
                  type="monotone"
                  dataKey={metric.key}
                  name={metric.label}
                  stroke={metric.color[colors.scheme]}
                  strokeWidth={2}
                  dot={false}
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </div>
        <figcaption>
          <details>
            <summary>
              <Text span size="sm">
                Show as a table
              </Text>
            </summary>
            <TableScroll minWidth={560}>
              <Table aria-label={`Emails per ${series.granularity}`} mt="xs">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">{series.granularity === 'hour' ? 'Hour' : 'Day'}</Table.Th>
                    {metrics.map((metric) => (
                      <Table.Th scope="col" key={metric.key}>
                        {metric.label}
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((row) => (
                    <Table.Tr key={row.bucket}>
                      <Table.Td>{new Date(row.bucket).toLocaleString()}</Table.Td>
                      {metrics.map((metric) => (
                        <Table.Td key={metric.key}>{row[metric.key]}</Table.Td>
                      ))}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </TableScroll>
          </details>
        </figcaption>
      </figure>
    </Paper>
  )
}
