import { Anchor, Badge, Button, Code, Progress, Stack, Table, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import { contactQueries } from '../../api/contacts'
import { useProject } from '../../api/project-context'
import { ColumnHeads } from '../../components/ColumnHeads'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { TableFrame } from '../../components/TableFrame'
import { DeleteFieldDialog } from './DeleteFieldDialog'

/** Every field contacts have, its inferred type, and how many contacts have it (the API's coverage). */
export function FieldsPage() {
  const { project } = useProject()
  const [deleting, setDeleting] = useState<{ field: string; count: number }>()
  const fields = useQuery(contactQueries.fields(project.id))
  return (
    <Stack gap="md" maw={960}>
      <Anchor component={Link} to="/contacts" size="sm">
        ← All contacts
      </Anchor>
      <PageHeader title="Contact fields">
        {fields.data && (
          <Text size="sm" c="dimmed">
            {fields.data.totalContacts.toLocaleString()} {fields.data.totalContacts === 1 ? 'contact' : 'contacts'}
          </Text>
        )}
      </PageHeader>
      <QueryState query={fields} label="Loading fields">
        {(list) => {
          const custom = list.fields.filter((field) => !field.standard)
          return (
            <>
              <TableFrame minWidth={640}>
                <Table aria-label="Contact fields">
                  <ColumnHeads
                    columns={[
                      'Field',
                      'Type',
                      'Kind',
                      'Contacts',
                      { key: 'coverage', label: 'Coverage', width: 240 },
                      { key: 'actions', label: <span className="visually-hidden">Actions</span> },
                    ]}
                  />
                  <Table.Tbody>
                    {list.fields.map((field) => (
                      <Table.Tr key={`${field.standard}-${field.field}`}>
                        <Table.Td>
                          <Code>{field.standard ? field.field : `data.${field.field}`}</Code>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{field.type}</Text>
                        </Table.Td>
                        <Table.Td>
                          <Badge color={field.standard ? 'gray.7' : 'indigo.8'}>
                            {field.standard ? 'Standard' : 'Custom'}
                          </Badge>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{field.count.toLocaleString()}</Text>
                        </Table.Td>
                        <Table.Td>
                          <Progress value={field.coverage} aria-label={`Coverage of ${field.field}`} size="sm" />
                          <Text size="xs" c="dimmed">
                            {field.coverage}%
                          </Text>
                        </Table.Td>
                        <Table.Td ta="right">
                          {!field.standard && (
                            <Button
                              size="xs"
                              variant="default"
                              aria-label={`Delete data.${field.field}`}
                              onClick={() => setDeleting({ field: field.field, count: field.count })}
                            >
                              Delete…
                            </Button>
                          )}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </TableFrame>
              {custom.length === 0 && (
                <EmptyState title="No custom fields yet">
                  Custom fields come from the data of contacts: a CSV import's extra columns, or `data` sent with the
                  API.
                </EmptyState>
              )}
            </>
          )
        }}
      </QueryState>
      <DeleteFieldDialog field={deleting?.field} count={deleting?.count ?? 0} onClose={() => setDeleting(undefined)} />
    </Stack>
  )
}
