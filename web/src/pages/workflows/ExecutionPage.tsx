import { Anchor, Badge, Button, Code, Flex, Group, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { useProject } from '../../api/project-context'
import type { ExecutionDetail } from '../../api/types'
import { cancelExecution, workflowQueries } from '../../api/workflows'
import { QueryState } from '../../components/states'
import { TableFrame } from '../../components/TableFrame'
import { TruncatedLink } from '../../components/TruncatedLink'
import { ConfirmModal } from './ConfirmModal'
import { executionStatusColor, stepTypeName } from './labels'
import { useWorkflowChange } from './use-workflow-change'

const active = (status: ExecutionDetail['status']) => status === 'RUNNING' || status === 'WAITING'
const when = (date: string | null) => (date ? new Date(date).toLocaleString() : '—')

/** One execution: where it stands, and each step it went through with its status, times, output and error. */
export function ExecutionPage() {
  const { id = '', executionId = '' } = useParams()
  const { project } = useProject()
  const execution = useQuery({
    ...workflowQueries.execution(project.id, id, executionId),
    refetchInterval: (q) => (q.state.data && active(q.state.data.status) ? 2_000 : false),
  })
  return (
    <QueryState query={execution} label="Loading the execution">
      {(detail) => <Execution execution={detail} />}
    </QueryState>
  )
}

function Execution({ execution }: { execution: ExecutionDetail }) {
  const { project } = useProject()
  const [confirming, setConfirming] = useState(false)
  const cancel = useWorkflowChange(
    () => cancelExecution(project.id, execution.workflowId, execution.id),
    () => 'Execution cancelled',
  )
  const facts: [string, string][] = [
    ['Contact', execution.contact.email],
    ['Started by', execution.triggerKind === 'MANUAL' ? 'Manual start' : 'Event'],
    ['Started', when(execution.startedAt)],
    ['Finished', when(execution.completedAt)],
    ['Current step', execution.currentStep?.name ?? '—'],
    ...(execution.waitingFor ? [['Waiting for', execution.waitingFor] as [string, string]] : []),
    ...(execution.dueAt ? [['Next action at', when(execution.dueAt)] as [string, string]] : []),
    ...(execution.exitReason ? [['Exit reason', execution.exitReason] as [string, string]] : []),
  ]
  return (
    <Stack gap="md">
      <div>
        <Anchor component={Link} to={`/workflows/${execution.workflowId}/executions`} size="sm">
          All executions of {execution.workflow.name}
        </Anchor>
        <Flex justify="space-between" gap="sm" wrap={{ base: 'wrap', sm: 'nowrap' }}>
          <Group gap="sm" miw={0}>
            <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }}>
              Execution for {execution.contact.email}
            </Title>
            <Badge size="lg" color={executionStatusColor[execution.status]} data-testid="execution-status">
              {execution.status}
            </Badge>
          </Group>
          {active(execution.status) && (
            <Button
              color="red"
              variant="light"
              onClick={() => {
                cancel.reset()
                setConfirming(true)
              }}
            >
              Cancel execution…
            </Button>
          )}
        </Flex>
      </div>
      <Paper withBorder p="md">
        {/* Fixed columns: a long address is cut inside its cell instead of widening the page on a phone. */}
        <Table aria-label="Execution" variant="vertical" withRowBorders={false} layout="fixed">
          <Table.Tbody>
            {facts.map(([label, value]) => (
              <Table.Tr key={label}>
                <Table.Th scope="row" w={{ base: 120, sm: 160 }}>
                  {label}
                </Table.Th>
                <Table.Td>{label === 'Contact' ? <ContactLink execution={execution} /> : value}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {Object.keys(execution.context).length > 0 && (
          <>
            <Text size="sm" fw={600} mt="sm">
              Context
            </Text>
            <Code block>{JSON.stringify(execution.context, null, 2)}</Code>
          </>
        )}
      </Paper>
      <Title order={2} size="h4">
        Step history
      </Title>
      {execution.stepExecutions.length === 0 ? (
        <Text size="sm" c="dimmed">
          No step has run yet.
        </Text>
      ) : (
        <TableFrame minWidth={640}>
          <Table aria-label="Step history">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Step</Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Started</Table.Th>
                <Table.Th scope="col">Finished</Table.Th>
                <Table.Th scope="col">Output or error</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {execution.stepExecutions.map((run) => (
                <Table.Tr key={run.id}>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {run.step.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {stepTypeName(run.step.type)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{run.status}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{when(run.startedAt)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{when(run.completedAt)}</Text>
                  </Table.Td>
                  <Table.Td maw={420}>
                    {run.error && (
                      <Text size="sm" c="red" role="note">
                        {run.error}
                      </Text>
                    )}
                    {run.output && Object.keys(run.output).length > 0 && (
                      <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                        {JSON.stringify(run.output, null, 2)}
                      </Code>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableFrame>
      )}
      <ConfirmModal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Cancel this execution?"
        confirmLabel="Cancel execution"
        onConfirm={() => cancel.mutate(undefined, { onSuccess: () => setConfirming(false) })}
        pending={cancel.isPending}
        error={cancel.error}
      >
        The execution stops where it is; steps already done are not undone.
      </ConfirmModal>
    </Stack>
  )
}

function ContactLink({ execution }: { execution: ExecutionDetail }) {
  return <TruncatedLink to={`/contacts/${execution.contact.id}`} text={execution.contact.email} />
}
