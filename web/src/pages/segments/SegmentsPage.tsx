import { Badge, Paper, Table, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import { listSegments, segmentsKey } from '../../api/segments'
import { EmptyState, PageHeader, QueryState } from '../../components/states'

export function SegmentsPage() {
  const { project } = useProject()
  const segments = useQuery({ queryKey: segmentsKey(project.id), queryFn: listSegments })
  return (
    <>
      <PageHeader title="Segments" />
      <QueryState query={segments} label="Loading segments">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No segments yet">
              Segments group contacts by a condition (dynamic) or by hand (static). Create them with the API for now:
              POST /segments.
            </EmptyState>
          ) : (
            <Paper withBorder>
              <Table aria-label="Segments">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Name</Table.Th>
                    <Table.Th scope="col">Type</Table.Th>
                    <Table.Th scope="col">Members</Table.Th>
                    <Table.Th scope="col">Entry and exit tracking</Table.Th>
                    <Table.Th scope="col">Updated</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.map((segment) => (
                    <Table.Tr key={segment.id}>
                      <Table.Td>
                        <Text size="sm" fw={500}>
                          {segment.name}
                        </Text>
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
                </Table.Tbody>
              </Table>
            </Paper>
          )
        }
      </QueryState>
    </>
  )
}
