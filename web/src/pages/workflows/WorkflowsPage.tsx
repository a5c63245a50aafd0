import { ActionIcon, Anchor, Badge, Button, Table, Text, TextInput } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import { useProject } from '../../api/project-context'
import type { WorkflowListItem } from '../../api/types'
import { deleteWorkflow, workflowQueries } from '../../api/workflows'
import { PagePager } from '../../components/PagePager'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { TableFrame } from '../../components/TableFrame'
import { ConfirmModal } from './ConfirmModal'
import { CreateWorkflowModal } from './CreateWorkflowModal'
import { triggerLabel } from './labels'
import { useWorkflowChange } from './use-workflow-change'

export function WorkflowsPage() {
  const { project } = useProject()
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 300)
  const [page, setPage] = useState(1)
  const [creating, setCreating] = useState(false)
  const [deleting, setDeleting] = useState<WorkflowListItem>()
  const workflows = useQuery({
    ...workflowQueries.list(project.id, { page, search: debounced }),
    placeholderData: keepPreviousData,
  })
  const remove = useWorkflowChange(
    (workflow: WorkflowListItem) => deleteWorkflow(project.id, workflow.id),
    (_, workflow) => `Workflow "${workflow.name}" deleted`,
  )
  const newButton = (variant?: string) => (
    <Button variant={variant} onClick={() => setCreating(true)}>
      New workflow
    </Button>
  )
  return (
    <>
      <PageHeader title="Workflows">{newButton()}</PageHeader>
      <TextInput
        label="Search"
        placeholder="Workflow name"
        type="search"
        value={search}
        onChange={(event) => {
          setSearch(event.currentTarget.value)
          setPage(1)
        }}
        w={320}
        mb="md"
      />
      <QueryState query={workflows} label="Loading workflows">
        {(result) =>
          result.total === 0 ? (
            <EmptyState
              title={debounced ? 'No workflows match' : 'No workflows yet'}
              action={debounced ? undefined : newButton('light')}
            >
              {debounced
                ? 'Try another search.'
                : 'A workflow reacts to an event of a contact: it sends emails, waits, branches and calls webhooks.'}
            </EmptyState>
          ) : (
            <>
              <TableFrame minWidth={640}>
                <Table aria-label="Workflows" aria-busy={workflows.isFetching}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Name</Table.Th>
                      <Table.Th scope="col">Trigger</Table.Th>
                      <Table.Th scope="col">Status</Table.Th>
                      <Table.Th scope="col">Steps</Table.Th>
                      <Table.Th scope="col">Executions</Table.Th>
                      <Table.Th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {result.data.map((workflow) => (
                      <Table.Tr key={workflow.id}>
                        <Table.Td>
                          <Anchor component={Link} to={`/workflows/${workflow.id}`} size="sm" fw={500}>
                            {workflow.name}
                          </Anchor>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{triggerLabel(workflow)}</Text>
                        </Table.Td>
                        <Table.Td>
                          <Badge color={workflow.enabled ? 'teal.9' : 'gray.7'}>
                            {workflow.enabled ? 'Enabled' : 'Disabled'}
                          </Badge>
                        </Table.Td>
                        <Table.Td>{workflow._count.steps.toLocaleString()}</Table.Td>
                        <Table.Td>
                          <Anchor component={Link} to={`/workflows/${workflow.id}/executions`} size="sm">
                            {workflow._count.executions.toLocaleString()}
                            <span className="visually-hidden"> executions of {workflow.name}</span>
                          </Anchor>
                        </Table.Td>
                        <Table.Td>
                          <ActionIcon
                            variant="subtle"
                            color="red"
                            aria-label={`Delete ${workflow.name}`}
                            onClick={() => {
                              remove.reset()
                              setDeleting(workflow)
                            }}
                          >
                            <TrashIcon />
                          </ActionIcon>
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
      {creating && <CreateWorkflowModal opened onClose={() => setCreating(false)} />}
      <ConfirmModal
        opened={deleting !== undefined}
        onClose={() => setDeleting(undefined)}
        title={`Delete ${deleting?.name ?? 'workflow'}?`}
        confirmLabel="Delete workflow"
        onConfirm={() => deleting && remove.mutate(deleting, { onSuccess: () => setDeleting(undefined) })}
        pending={remove.isPending}
        error={remove.error}
      >
        The workflow, its steps and its finished executions are deleted. A workflow with running or waiting executions
        cannot be deleted until they are cancelled or done.
      </ConfirmModal>
    </>
  )
}

function TrashIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden>
      <path d="M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3" />
    </svg>
  )
}
