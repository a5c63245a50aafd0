import { Badge, Button, Table, Text } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { Link } from 'react-router'
import { useProject } from '../../api/project-context'
import { templateQueries } from '../../api/templates'
import { DataTable } from '../../components/DataTable'
import { ListEmptyState } from '../../components/ListEmptyState'
import { ListFilters } from '../../components/ListFilters'
import { useListFilters } from '../../components/list-filters'
import { PagedList } from '../../components/PagedList'
import { PageHeader } from '../../components/states'
import { TruncatedLink } from '../../components/TruncatedLink'

export function TemplatesPage() {
  const { project } = useProject()
  const filters = useListFilters()
  const { debounced, option: type, page } = filters
  const templates = useQuery({
    ...templateQueries.list(project.id, {
      page,
      pageSize: 20,
      search: debounced,
      type: type ?? undefined,
      sort: 'updatedAt',
    }),
    placeholderData: keepPreviousData,
  })
  return (
    <>
      <PageHeader title="Templates">
        <Button component={Link} to="/templates/new">
          New template
        </Button>
      </PageHeader>
      <ListFilters
        state={filters}
        searchPlaceholder="Name or subject"
        optionLabel="Type"
        optionPlaceholder="Any type"
        options={['TRANSACTIONAL', 'MARKETING', 'HEADLESS']}
      />
      <PagedList
        query={templates}
        label="Loading templates"
        page={page}
        onPage={filters.setPage}
        empty={
          <ListEmptyState
            filtered={filters.filtered}
            plural="templates"
            filteredHint="Try another search or type."
            create={{ to: '/templates/new', label: 'Create a template' }}
          >
            Templates hold a subject and HTML body with {'{{variables}}'} that sends and campaigns reuse.
          </ListEmptyState>
        }
      >
        {(result) => (
          <DataTable label="Templates" columns={['Name', 'Subject', 'Type', 'Updated']} busy={templates.isFetching}>
            {result.data.map((template) => (
              <Table.Tr key={template.id}>
                <Table.Td>
                  <TruncatedLink to={`/templates/${template.id}`} text={template.name} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm" lineClamp={1} title={template.subject}>
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
          </DataTable>
        )}
      </PagedList>
    </>
  )
}
