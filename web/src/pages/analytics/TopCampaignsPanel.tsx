import { Group, Paper, Select, Table, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { analyticsQueries } from '../../api/analytics'
import { useProject } from '../../api/project-context'
import { ColumnHeads } from '../../components/ColumnHeads'
import { EmptyState, QueryState } from '../../components/states'
import { TableScroll } from '../../components/TableFrame'
import { RankingChart } from './RankingChart'

const rankings = {
  sent: 'Sent',
  delivered: 'Delivered',
  opened: 'Opened',
  clicked: 'Clicked',
  bounced: 'Bounced',
  openRate: 'Open rate (%)',
  clickRate: 'Click rate (%)',
} as const
type Ranking = keyof typeof rankings

/** Campaigns of all time ranked by one metric (the API's top list has no period). */
export function TopCampaignsPanel() {
  const { project } = useProject()
  const [metric, setMetric] = useState<Ranking>('sent')
  const top = useQuery(analyticsQueries.topCampaigns(project.id, metric))
  return (
    <section aria-labelledby="top-campaigns-heading">
      <Group justify="space-between" align="flex-end" mb="xs">
        <Text component="h2" fw={600} size="lg" id="top-campaigns-heading">
          Top campaigns
        </Text>
        <Select
          label="Ranked by"
          size="xs"
          value={metric}
          allowDeselect={false}
          onChange={(value) => value && setMetric(value as Ranking)}
          data={Object.entries(rankings).map(([value, label]) => ({ value, label }))}
          w={160}
        />
      </Group>
      <QueryState query={top} label="Loading top campaigns">
        {(data) => {
          // Captured mail (MAIL_TRANSPORT=capture) gets its own column once there is some.
          const captured = data.data.some((row) => row.captured > 0)
          return data.data.length === 0 ? (
            <EmptyState title="No campaigns sent yet">Campaigns appear here once they have sent email.</EmptyState>
          ) : (
            <Paper withBorder p="sm">
              <RankingChart
                rows={data.data.map((row) => ({ name: row.name ?? 'Deleted campaign', value: row[metric] }))}
                label={`Campaigns by ${rankings[metric].toLowerCase()}`}
              />
              <TableScroll minWidth={480}>
                <Table aria-label="Top campaigns" mt="xs">
                  <ColumnHeads
                    columns={['Campaign', 'Sent', ...(captured ? ['Captured'] : []), 'Opened', 'Clicked', 'Open rate']}
                  />
                  <Table.Tbody>
                    {data.data.map((row) => (
                      <Table.Tr key={row.campaignId}>
                        <Table.Td>
                          <Text size="sm" c={row.name ? undefined : 'dimmed'}>
                            {row.name ?? 'Deleted campaign'}
                          </Text>
                        </Table.Td>
                        <Table.Td>{row.sent.toLocaleString()}</Table.Td>
                        {captured && <Table.Td>{row.captured.toLocaleString()}</Table.Td>}
                        <Table.Td>{row.opened.toLocaleString()}</Table.Td>
                        <Table.Td>{row.clicked.toLocaleString()}</Table.Td>
                        <Table.Td>{row.openRate}%</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </TableScroll>
            </Paper>
          )
        }}
      </QueryState>
    </section>
  )
}
