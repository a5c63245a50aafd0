import { Anchor, Badge, Button, Group, Pagination, Paper, Select, Table, Text, TextInput } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import { api, query } from '../../api/client'
import { useProject } from '../../api/project-context'
import type { TemplatePage } from '../../api/types'
import { EmptyState, PageHeader, QueryState } from '../../components/states'

export function TemplatesPage() {
  const { project } = useProject()
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 300)
  const [type, setType] = useState<string | null>(null)
  const [page, setPage] = useState(1)
  const templates = useQuery({
    queryKey: ['project', project.id, 'templates', debounced, type, page],
    queryFn: () =>
      api<TemplatePage>(
        `/templates${query({ page, pageSize: 20, search: debounced, type: type ?? undefined, sort: 'updatedAt' })}`,
      ),
    placeholderData: keepPreviousData,
  })
  return (
    <>
      <PageHeader title="Templates">
        <Button component={Link} to="/templates/new">
          New template
        </Button>
      </PageHeader>
      <Group mb="md" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Name or subject"
          type="search"
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value)
            setPage(1)
          }}
          w={320}
        />
        <Select
          label="Type"
          placeholder="Any type"
          clearable
          value={type}
          onChange={(value) => {
            setType(value)
            setPage(1)
          }}
          data={['TRANSACTIONAL', 'MARKETING', 'HEADLESS']}
          w={200}
        />
      </Group>
      <QueryState query={templates} label="Loading templates">
        {(result) =>
          result.total === 0 ? (
            <EmptyState
              title={debounced || type ? 'No templates match' : 'No templates yet'}
              action={
                !debounced && !type ? (
                  <Button component={Link} to="/templates/new" variant="light">
                    Create a template
                  </Button>
                ) : undefined
              }
            >
              {debounced || type
                ? 'Try another search or type.'
                : 'Templates hold a subject and HTML body with {{variables}} that sends and campaigns reuse.'}
            </EmptyState>
          ) : (
            <>
              <Paper withBorder>
                <Table highlightOnHover aria-label="Templates" aria-busy={templates.isFetching}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Name</Table.Th>
                      <Table.Th scope="col">Subject</Table.Th>
                      <Table.Th scope="col">Type</Table.Th>
                      <Table.Th scope="col">Updated</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {result.data.map((template) => (
                      <Table.Tr key={template.id}>
                        <Table.Td>
                          <Anchor component={Link} to={`/templates/${template.id}`} size="sm">
                            {template.name}
                          </Anchor>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm" lineClamp={1}>
                            {template.subject}
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <Badge color="gray.7">{template.type}</Badge>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{new Date(template.updatedAt).toLocaleString()}</Text>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Paper>
              {result.totalPages > 1 && (
                <Group justify="flex-end" mt="sm">
                  <Pagination
                    total={result.totalPages}
                    value={page}
                    onChange={setPage}
                    getControlProps={(control) => ({ 'aria-label': `${control} page` })}
                  />
                </Group>
              )}
            </>
          )
        }
      </QueryState>
    </>
  )
}
