import { Paper, Table } from '@mantine/core'
import type { TopEvents } from '../../api/types'
import { ColumnHeads } from '../../components/ColumnHeads'
import { EmptyState } from '../../components/states'
import { TableScroll } from '../../components/TableFrame'
import { RankingChart } from './RankingChart'

export function TopEventsPanel({ events }: { events: TopEvents['events'] }) {
  if (events.length === 0) {
    return <EmptyState title="No events in this period">Events you track with the API appear here.</EmptyState>
  }
  return (
    <Paper withBorder p="sm">
      <RankingChart rows={events.map((event) => ({ name: event.name, value: event.count }))} label="Events tracked" />
      <TableScroll minWidth={360}>
        <Table aria-label="Top events" mt="xs">
          <ColumnHeads columns={['Event', 'Count', 'Period before']} />
          <Table.Tbody>
            {events.map((event) => (
              <Table.Tr key={event.name}>
                <Table.Td>{event.name}</Table.Td>
                <Table.Td>{event.count.toLocaleString()}</Table.Td>
                <Table.Td>{event.previousCount.toLocaleString()}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
    </Paper>
  )
}
