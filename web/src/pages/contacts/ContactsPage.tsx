import { Anchor, Badge, Group, Paper, SegmentedControl, Select, Table, Text, TextInput } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { Link } from 'react-router'
import { api, query } from '../../api/client'
import { useProject } from '../../api/project-context'
import type { ContactPage } from '../../api/types'
import { CursorPager } from '../../components/CursorPager'
import { EmptyState, PageHeader, QueryState } from '../../components/states'

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
  // cursors[i] opens page i + 1; the first page has no cursor.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined])
  const cursor = cursors[cursors.length - 1]
  const [total, setTotal] = useState<number>()

  const contacts = useQuery({
    queryKey: ['project', project.id, 'contacts', debounced, subscribed, sort, cursor],
    queryFn: () =>
      api<ContactPage>(
        `/contacts${query({
          limit: 25,
          search: debounced,
          subscribed: subscribed === 'all' ? undefined : subscribed,
          sort: sortField,
          dir: sortDir,
          cursor,
        })}`,
      ),
    placeholderData: keepPreviousData,
  })
  // The API counts only on the first page (0 after it), so the count of the first page is kept.
  useEffect(() => {
    if (!cursor && contacts.data && !contacts.isPlaceholderData) setTotal(contacts.data.total)
  }, [cursor, contacts.data, contacts.isPlaceholderData])

  const restart = () => setCursors([undefined])

  return (
    <>
      <PageHeader title="Contacts">
        {total !== undefined && (
          <Text size="sm" c="dimmed" aria-live="polite">
            {total.toLocaleString()} {total === 1 ? 'contact' : 'contacts'}
          </Text>
        )}
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
          page.data.length === 0 && cursors.length === 1 ? (
            <EmptyState title={debounced || subscribed !== 'all' ? 'No contacts match' : 'No contacts yet'}>
              {debounced || subscribed !== 'all'
                ? 'Try another search or filter.'
                : 'Contacts appear when you send to an address, track an event for it, or create one with the API.'}
            </EmptyState>
          ) : (
            <Paper withBorder>
              <Table highlightOnHover aria-label="Contacts" aria-busy={contacts.isFetching}>
                <Table.Thead>
                  <Table.Tr>
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
                        <Anchor component={Link} to={`/contacts/${contact.id}`} size="sm">
                          {contact.email}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Badge color={contact.subscribed ? 'green.9' : 'gray.7'}>
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
            </Paper>
          )
        }
      </QueryState>
      {contacts.data && (
        <CursorPager
          page={cursors.length}
          hasMore={contacts.data.hasMore}
          busy={contacts.isFetching}
          onPrevious={() => setCursors((list) => list.slice(0, -1))}
          onNext={() => {
            const next = contacts.data?.cursor
            if (next) setCursors((list) => [...list, next])
          }}
        />
      )}
    </>
  )
}
