import { Badge, Button, Table, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router'
import { useProject } from '../../api/project-context'
import { segmentQueries } from '../../api/segments'
import { DataTable } from '../../components/DataTable'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { TruncatedLink } from '../../components/TruncatedLink'

export function SegmentsPage() {
  const { project } = useProject()
  const segments = useQuery(segmentQueries.list(project.id))
  const create = (
    <Button component={Link} to="/segments/new">
      New segment
    </Button>
  )
  return (
    <>
      <PageHeader title="Segments">{create}</PageHeader>
      <QueryState query={segments} label="Loading segments">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No segments yet" action={create}>
              Segments group contacts by a condition (dynamic) or by hand (static), for campaign audiences and workflow
              triggers.
            </EmptyState>
          ) : (
            <DataTable
              label="Segments"
              columns={['Name', 'Type', 'Members', 'Entry and exit tracking', 'Updated']}
              busy={segments.isFetching}
            >
              {list.map((segment) => (
                <Table.Tr key={segment.id}>
                  <Table.Td>
                    <TruncatedLink to={`/segments/${segment.id}`} text={segment.name} fw={500} />
                    {segment.description && (
                      <Text size="xs" c="dimmed">
                        {segment.description}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge color="gray.7">{segment.type}</Badge>
                  </Table.Td>
                  <Table.Td>{segment.memberCount.toLocaleString()}</Table.Td>
                  <Table.Td>{segment.trackMembership ? 'On' : 'Off'}</Table.Td>
                  <Table.Td>{new Date(segment.updatedAt).toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
          )
        }
      </QueryState>
    </>
  )
}
