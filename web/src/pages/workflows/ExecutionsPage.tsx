import { Anchor, Badge, Button, Group, Pagination, Paper, Select, Table, Text } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { useProject } from '../../api/project-context'
import type { ExecutionStatus } from '../../api/types'
import { cancelAllExecutions, getWorkflow, listExecutions, workflowKey, workflowsKey } from '../../api/workflows'
import { notifySuccess } from '../../components/notify'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { ConfirmModal } from './ConfirmModal'
import { executionStatusColor, executionStatuses } from './labels'

const activeStatuses: ExecutionStatus[] = ['RUNNING', 'WAITING']

/** A workflow's executions, newest first, by status and page; cancelling every active one at once. */
export function ExecutionsPage() {
  const { id = '' } = useParams()
  const { project } = useProject()
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<ExecutionStatus>()
  const [page, setPage] = useState(1)
  const [confirming, setConfirming] = useState(false)
  const workflow = useQuery({ queryKey: workflowKey(project.id, id), queryFn: () => getWorkflow(id) })
  const executions = useQuery({
    queryKey: [...workflowKey(project.id, id), 'executions', status, page],
    queryFn: () => listExecutions(id, { page, status }),
    placeholderData: keepPreviousData,
    // Running executions move on by themselves; keep the page current while any is shown.
    refetchInterval: (q) =>
      q.state.data?.executions.some((execution) => activeStatuses.includes(execution.status)) ? 3_000 : false,
  })
  const cancelAll = useMutation({
    mutationFn: () => cancelAllExecutions(id),
    onSuccess: async (result) => {
      setConfirming(false)
      notifySuccess(`${result.cancelled} execution(s) cancelled`)
      await queryClient.invalidateQueries({ queryKey: workflowsKey(project.id) })
    },
  })
  const name = workflow.data?.name ?? 'Workflow'
  return (
    <>
      <Anchor component={Link} to={`/workflows/${id}`} size="sm">
        Back to {name}
      </Anchor>
      <PageHeader title={`Executions of ${name}`}>
        <Button
          color="red"
          variant="light"
          onClick={() => {
            cancelAll.reset()
            setConfirming(true)
          }}
        >
          Cancel all active…
        </Button>
      </PageHeader>
      <Select
        label="Status"
        placeholder="Any status"
        clearable
        data={executionStatuses}
        value={status ?? null}
        onChange={(value) => {
          setStatus(executionStatuses.find((candidate) => candidate === value))
          setPage(1)
        }}
        w={200}
        mb="md"
      />
      <QueryState query={executions} label="Loading executions">
        {(result) =>
          result.total === 0 ? (
            <EmptyState title={status ? `No ${status.toLowerCase()} executions` : 'No executions yet'}>
              {status
                ? 'Try another status.'
                : 'An execution starts when the trigger event is tracked for a contact while the workflow is enabled, or when you start one by hand.'}
            </EmptyState>
          ) : (
            <>
              <Text size="sm" c="dimmed" mb="xs">
                {result.total.toLocaleString()} execution{result.total === 1 ? '' : 's'}
              </Text>
              <Paper withBorder>
                <Table aria-label="Executions" aria-busy={executions.isFetching}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Contact</Table.Th>
                      <Table.Th scope="col">Status</Table.Th>
                      <Table.Th scope="col">Current step</Table.Th>
                      <Table.Th scope="col">Started by</Table.Th>
                      <Table.Th scope="col">Started</Table.Th>
                      <Table.Th scope="col">Finished</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {result.executions.map((execution) => (
                      <Table.Tr key={execution.id}>
                        <Table.Td>
                          <Anchor component={Link} to={`/workflows/${id}/executions/${execution.id}`} size="sm">
                            {execution.contact.email}
                          </Anchor>
                        </Table.Td>
                        <Table.Td>
                          <Badge color={executionStatusColor[execution.status]}>{execution.status}</Badge>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{execution.currentStep?.name ?? '—'}</Text>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{execution.triggerKind === 'MANUAL' ? 'Hand' : 'Event'}</Text>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{new Date(execution.startedAt).toLocaleString()}</Text>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">
                            {execution.completedAt ? new Date(execution.completedAt).toLocaleString() : '—'}
                          </Text>
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
      <ConfirmModal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Cancel every active execution?"
        confirmLabel="Cancel all"
        onConfirm={() => cancelAll.mutate()}
        pending={cancelAll.isPending}
        error={cancelAll.error}
      >
        Every running or waiting execution of this workflow stops where it is. Finished ones are not changed.
      </ConfirmModal>
    </>
  )
}
