import { Badge, Button, Group, Select, Table, Text, TextInput } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useProject } from '../../api/project-context'
import { liftSuppression, suppressionQueries } from '../../api/suppressions'
import type { Suppression } from '../../api/types'
import { ColumnHeads } from '../../components/ColumnHeads'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { notifySuccess } from '../../components/notify'
import { QueryPager } from '../../components/QueryPager'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { TableFrame } from '../../components/TableFrame'
import { useCursors } from '../../components/use-cursors'
import { AddSuppressionForm } from './AddSuppressionForm'
import { reasonLabels } from './reasons'

export function SuppressionsPage() {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 300)
  const [reason, setReason] = useState<string | null>(null)
  const pages = useCursors()
  const [lifting, setLifting] = useState<Suppression>()
  const listKey = suppressionQueries.all(project.id)

  const suppressions = useQuery({
    ...suppressionQueries.list(project.id, {
      limit: 25,
      search: debounced,
      reason: reason ?? undefined,
      cursor: pages.cursor,
    }),
    placeholderData: keepPreviousData,
  })
  const lift = useMutation({
    mutationFn: (email: string) => liftSuppression(project.id, email),
    onSuccess: async (_, email) => {
      setLifting(undefined)
      notifySuccess(`Suppression lifted: ${email} can receive mail again`)
      await queryClient.invalidateQueries({ queryKey: listKey })
    },
  })
  const filtered = Boolean(debounced || reason)

  return (
    <>
      <PageHeader title="Suppressions">
        {suppressions.data && !pages.cursor && (
          <Text size="sm" c="dimmed" aria-live="polite">
            {suppressions.data.total.toLocaleString()} {suppressions.data.total === 1 ? 'address' : 'addresses'}
          </Text>
        )}
      </PageHeader>
      <Text size="sm" c="dimmed" mb="md" maw={720}>
        No email is sent to these addresses. They are added when mail bounces permanently or the recipient complains;
        lift one when its mailbox works again.
      </Text>
      <AddSuppressionForm onAdded={() => queryClient.invalidateQueries({ queryKey: listKey })} />
      <Group mb="md" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Part of an address"
          type="search"
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value)
            pages.restart()
          }}
          w={320}
        />
        <Select
          label="Reason"
          placeholder="Any reason"
          clearable
          value={reason}
          onChange={(value) => {
            setReason(value)
            pages.restart()
          }}
          data={Object.entries(reasonLabels).map(([value, label]) => ({ value, label }))}
          w={200}
        />
      </Group>
      <QueryState query={suppressions} label="Loading suppressions">
        {(page) =>
          page.data.length === 0 && pages.page === 1 ? (
            <EmptyState title={filtered ? 'No addresses match' : 'No suppressed addresses'}>
              {filtered
                ? 'Try another search or reason.'
                : 'Addresses that bounce permanently or complain appear here, and mail to them stops.'}
            </EmptyState>
          ) : (
            <TableFrame minWidth={600}>
              <Table aria-label="Suppressed addresses" aria-busy={suppressions.isFetching}>
                <ColumnHeads
                  columns={[
                    'Address',
                    'Reason',
                    'Since',
                    { key: 'actions', label: <span className="visually-hidden">Actions</span> },
                  ]}
                />
                <Table.Tbody>
                  {page.data.map((row) => (
                    <Table.Tr key={row.email}>
                      <Table.Td>
                        <Text size="sm" maw={320} truncate="end" title={row.email}>
                          {row.email}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Badge color={row.reason === 'complaint' ? 'red.9' : 'gray.7'}>
                          {reasonLabels[row.reason]}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{new Date(row.createdAt).toLocaleString()}</Text>
                      </Table.Td>
                      <Table.Td ta="right">
                        <Button
                          size="xs"
                          variant="default"
                          onClick={() => {
                            lift.reset()
                            setLifting(row)
                          }}
                          aria-label={`Lift ${row.email}`}
                        >
                          Lift
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </TableFrame>
          )
        }
      </QueryState>
      <QueryPager pages={pages} query={suppressions} />
      <ConfirmDialog
        opened={lifting !== undefined}
        title={`Lift the suppression of ${lifting?.email ?? ''}?`}
        confirmLabel="Lift suppression"
        onConfirm={() => lifting && lift.mutate(lifting.email)}
        onClose={() => setLifting(undefined)}
        pending={lift.isPending}
        error={lift.error}
      >
        Mail will be sent to this address again. If it still bounces or complains, the project's bounce or complaint
        rate rises and its sending may be paused.
      </ConfirmDialog>
    </>
  )
}
