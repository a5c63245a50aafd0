import { Anchor, Badge, Button, Select, Table, Text } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import type { ExecutionStatus } from '../../api/types'
import { cancelAllExecutions, workflowQueries } from '../../api/workflows'
import { PagePager } from '../../components/PagePager'
import { EmptyState, NotFound, PageHeader, QueryState } from '../../components/states'
import { TableFrame } from '../../components/TableFrame'
import { TruncatedLink } from '../../components/TruncatedLink'
import { ConfirmModal } from './ConfirmModal'
import { executionStatusColor, executionStatuses } from './labels'
import { useWorkflowChange } from './use-workflow-change'

const activeStatuses: ExecutionStatus[] = ['RUNNING', 'WAITING']

/** A workflow's executions, newest first, by status and page; cancelling every active one at once. */
export function ExecutionsPage() {
  const { id = '' } = useParams()
  const { project } = useProject()
  const [status, setStatus] = useState<ExecutionStatus>()
  const [page, setPage] = useState(1)
  const [confirming, setConfirming] = useState(false)
  const workflow = useQuery(workflowQueries.detail(project.id, id))
  const executions = useQuery({
    ...workflowQueries.executions(project.id, id, { page, status }),
    placeholderData: keepPreviousData,
    // Running executions move on by themselves, and an enabled workflow starts new ones: keep the page current.
    refetchInterval: (q) => {
      if (q.state.data?.executions.some((execution) => activeStatuses.includes(execution.status))) return 3_000
      return workflow.data?.enabled ? 5_000 : false
    },
  })
  const cancelAll = useWorkflowChange(
    () => cancelAllExecutions(project.id, id),
    (result) => `${result.cancelled} execution(s) cancelled`,
  )
  const name = workflow.data?.name ?? 'Workflow'
  // Another project's workflow (or a deleted one): the page is not there at all, not an empty list under its title.
  if (workflow.error instanceof ApiError && workflow.error.status === 404) {
    return <NotFound message={workflow.error.message} />
  }
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
              <TableFrame minWidth={640}>
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
                          <TruncatedLink
                            to={`/workflows/${id}/executions/${execution.id}`}
                            text={execution.contact.email}
                          />
                        </Table.Td>
                        <Table.Td>
                          <Badge color={executionStatusColor[execution.status]}>{execution.status}</Badge>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{execution.currentStep?.name ?? '—'}</Text>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{execution.triggerKind === 'MANUAL' ? 'Manual start' : 'Event'}</Text>
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
              </TableFrame>
              <PagePager page={page} totalPages={result.totalPages} onChange={setPage} />
            </>
          )
        }
      </QueryState>
      <ConfirmModal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Cancel every active execution?"
        confirmLabel="Cancel all"
        onConfirm={() => cancelAll.mutate(undefined, { onSuccess: () => setConfirming(false) })}
        pending={cancelAll.isPending}
        error={cancelAll.error}
      >
        Every running or waiting execution of this workflow stops where it is. Finished ones are not changed.
      </ConfirmModal>
    </>
  )
}
