import { Badge, Button, Checkbox, Group, SegmentedControl, Select, Table, Text, TextInput } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useCallback, useEffect, useState } from 'react'
import { Link } from 'react-router'
import { contactQueries } from '../../api/contacts'
import { useProject } from '../../api/project-context'
import { QueryPager } from '../../components/QueryPager'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { TableFrame } from '../../components/TableFrame'
import { TruncatedLink } from '../../components/TruncatedLink'
import { useCursors } from '../../components/use-cursors'
import { BulkActions } from './BulkActions'

type Filter = 'all' | 'true' | 'false'

const sorts = {
  'createdAt-desc': 'Newest first',
  'createdAt-asc': 'Oldest first',
  'email-asc': 'Email, A to Z',
  'email-desc': 'Email, Z to A',
} as const
type Sort = keyof typeof sorts

export function ContactsPage() {
  const { project } = useProject()
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 300)
  const [subscribed, setSubscribed] = useState<Filter>('all')
  const [sort, setSort] = useState<Sort>('createdAt-desc')
  const [sortField, sortDir] = sort.split('-') as ['createdAt' | 'email', 'asc' | 'desc']
  const pages = useCursors()
  const cursor = pages.cursor
  const [total, setTotal] = useState<number>()

  const contacts = useQuery({
    ...contactQueries.list(project.id, {
      limit: 25,
      search: debounced,
      subscribed: subscribed === 'all' ? undefined : subscribed,
      sort: sortField,
      dir: sortDir,
      cursor,
    }),
    placeholderData: keepPreviousData,
  })
  // The API counts only on the first page (0 after it), so the count of the first page is kept.
  useEffect(() => {
    if (!cursor && contacts.data && !contacts.isPlaceholderData) setTotal(contacts.data.total)
  }, [cursor, contacts.data, contacts.isPlaceholderData])

  // Selected contacts by id, with their emails (adding to a static segment takes emails).
  const [selected, setSelected] = useState<Map<string, string>>(new Map())
  const clearSelection = useCallback(() => setSelected(new Map()), [])
  const toggle = (id: string, email: string, on: boolean) =>
    setSelected((current) => {
      const next = new Map(current)
      if (on) next.set(id, email)
      else next.delete(id)
      return next
    })

  const restart = pages.restart

  return (
    <>
      <PageHeader title="Contacts">
        {total !== undefined && (
          <Text size="sm" c="dimmed" aria-live="polite">
            {total.toLocaleString()} {total === 1 ? 'contact' : 'contacts'}
          </Text>
        )}
        <Button component={Link} to="/contacts/fields" variant="default">
          Fields
        </Button>
        <Button component={Link} to="/contacts/import">
          Import CSV
        </Button>
      </PageHeader>
      <Group mb="md" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Email address"
          type="search"
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value)
            restart()
          }}
          w={320}
        />
        <div>
          <Text size="sm" fw={500} mb={4} id="subscription-filter">
            Subscription
          </Text>
          <SegmentedControl
            aria-labelledby="subscription-filter"
            value={subscribed}
            onChange={(value) => {
              setSubscribed(value as Filter)
              restart()
            }}
            data={[
              { value: 'all', label: 'All' },
              { value: 'true', label: 'Subscribed' },
              { value: 'false', label: 'Unsubscribed' },
            ]}
          />
        </div>
        <Select
          label="Sort"
          value={sort}
          allowDeselect={false}
          onChange={(value) => {
            if (!value) return
            setSort(value as Sort)
            restart()
          }}
          data={Object.entries(sorts).map(([value, label]) => ({ value, label }))}
          w={200}
        />
      </Group>
      <QueryState query={contacts} label="Loading contacts">
        {(page) =>
          page.data.length === 0 && pages.page === 1 ? (
            <EmptyState title={debounced || subscribed !== 'all' ? 'No contacts match' : 'No contacts yet'}>
              {debounced || subscribed !== 'all'
                ? 'Try another search or filter.'
                : 'Contacts appear when you send to an address, track an event for it, or create one with the API.'}
            </EmptyState>
          ) : (
            <TableFrame
              minWidth={640}
              above={selected.size > 0 && <BulkActions selected={selected} onDone={clearSelection} />}
            >
              <Table highlightOnHover aria-label="Contacts" aria-busy={contacts.isFetching}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col" w={40}>
                      <Checkbox
                        aria-label="Select every contact on this page"
                        checked={page.data.length > 0 && page.data.every((contact) => selected.has(contact.id))}
                        indeterminate={
                          page.data.some((contact) => selected.has(contact.id)) &&
                          !page.data.every((contact) => selected.has(contact.id))
                        }
                        onChange={(event) => {
                          const on = event.currentTarget.checked
                          for (const contact of page.data) toggle(contact.id, contact.email, on)
                        }}
                      />
                    </Table.Th>
                    <Table.Th scope="col">Email</Table.Th>
                    <Table.Th scope="col">Subscription</Table.Th>
                    <Table.Th scope="col">Fields</Table.Th>
                    <Table.Th scope="col">Created</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {page.data.map((contact) => (
                    <Table.Tr key={contact.id}>
                      <Table.Td>
                        <Checkbox
                          aria-label={`Select ${contact.email}`}
                          checked={selected.has(contact.id)}
                          onChange={(event) => toggle(contact.id, contact.email, event.currentTarget.checked)}
                        />
                      </Table.Td>
                      <Table.Td>
                        <TruncatedLink to={`/contacts/${contact.id}`} text={contact.email} />
                      </Table.Td>
                      <Table.Td>
                        <Badge color={contact.subscribed ? 'teal.9' : 'gray.7'}>
                          {contact.subscribed ? 'Subscribed' : 'Unsubscribed'}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{Object.keys(contact.data).length}</Text>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{new Date(contact.createdAt).toLocaleString()}</Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </TableFrame>
          )
        }
      </QueryState>
      <QueryPager pages={pages} query={contacts} />
    </>
  )
}
