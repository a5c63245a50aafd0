import { Alert, Anchor, Box, Button, Flex, Group, Paper, Stack, Switch, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { useProject } from '../../api/project-context'
import type { WorkflowDetail, WorkflowStep } from '../../api/types'
import { updateWorkflow, workflowQueries } from '../../api/workflows'
import { ErrorAlert, QueryState } from '../../components/states'
import type { StepExit } from '../../components/workflow-graph/exits'
import { WorkflowGraph } from '../../components/workflow-graph/WorkflowGraph'
import { AddStepModal } from './AddStepModal'
import { useGraphActions } from './graph-actions'
import { stepTypeLabel, triggerLabel } from './labels'
import { StartExecutionModal } from './StartExecutionModal'
import { StepPanel } from './StepPanel'
import { stepSummary } from './step-summary'
import { useWorkflowChange } from './use-workflow-change'

/** The workflow editor (its own chunk, with @xyflow/react): the graph, the selected step's panel, enable and run. */
export function WorkflowEditorPage() {
  const { id = '' } = useParams()
  const { project } = useProject()
  const workflow = useQuery(workflowQueries.detail(project.id, id))
  return (
    <QueryState query={workflow} label="Loading the workflow">
      {(detail) => <Editor workflow={detail} />}
    </QueryState>
  )
}

function describe(step: WorkflowStep) {
  return { typeLabel: stepTypeLabel[step.type], summary: stepSummary(step) }
}

function Editor({ workflow }: { workflow: WorkflowDetail }) {
  const [selectedId, setSelectedId] = useState<string>()
  const [adding, setAdding] = useState<{ from: WorkflowStep; exit: StepExit }>()
  const [starting, setStarting] = useState(false)
  const actions = useGraphActions(workflow)
  const selected = workflow.steps.find((step) => step.id === selectedId)
  const graphError = actions.connect.error ?? actions.disconnect.error
  return (
    <>
      <Flex justify="space-between" mb="xs" gap="md" wrap={{ base: 'wrap', sm: 'nowrap' }} align="flex-start">
        <Box miw={0} style={{ overflowWrap: 'anywhere' }}>
          <Anchor component={Link} to="/workflows" size="sm">
            All workflows
          </Anchor>
          <Title order={1} size="h2">
            {workflow.name}
          </Title>
          <Text size="sm" c="dimmed">
            {triggerLabel(workflow)}
            {workflow.allowReentry ? ' · contacts may re-enter' : ''}
          </Text>
        </Box>
        <Group gap="sm">
          <EnableSwitch workflow={workflow} />
          <Button variant="default" onClick={() => setStarting(true)}>
            Start execution…
          </Button>
          <Button component={Link} to={`/workflows/${workflow.id}/executions`} variant="light">
            Executions
          </Button>
        </Group>
      </Flex>
      {graphError && (
        <Alert
          color="red"
          title="That change was refused"
          role="alert"
          mb="xs"
          withCloseButton
          closeButtonLabel="Dismiss error"
          onClose={() => {
            actions.connect.reset()
            actions.disconnect.reset()
          }}
        >
          {graphError.message}
        </Alert>
      )}
      {/* On a phone the graph and the step panel stack: the panel's lists and forms reach every action. */}
      <Flex direction={{ base: 'column', sm: 'row' }} align="stretch" gap="md">
        <Paper
          withBorder
          flex={{ base: 'none', sm: 1 }}
          miw={0}
          h={{ base: '60vh', sm: 'calc(100vh - 220px)' }}
          mih={{ base: 360, sm: 480 }}
        >
          <Box h="100%" role="region" aria-label="Workflow graph">
            <WorkflowGraph
              steps={workflow.steps}
              selectedId={selectedId}
              onSelect={setSelectedId}
              describe={describe}
              onConnect={({ fromStepId, handle, toStepId }) => {
                const from = workflow.steps.find((step) => step.id === fromStepId)
                if (from) actions.connect.mutate({ from, handle, toStepId })
              }}
              onDisconnect={(transitionId) => actions.disconnect.mutate(transitionId)}
            />
          </Box>
        </Paper>
        <Paper
          withBorder
          p="md"
          w={{ base: '100%', sm: 360 }}
          style={{ flexShrink: 0, overflowY: 'auto' }}
          h={{ base: 'auto', sm: 'calc(100vh - 220px)' }}
          mih={{ base: 0, sm: 480 }}
        >
          {selected ? (
            <StepPanel
              key={selected.id}
              workflow={workflow}
              step={selected}
              actions={actions}
              onAdd={(exit) => {
                actions.insert.reset()
                setAdding({ from: selected, exit })
              }}
              onClose={() => setSelectedId(undefined)}
            />
          ) : (
            <StepList steps={workflow.steps} onSelect={setSelectedId} />
          )}
        </Paper>
      </Flex>
      {adding && (
        <AddStepModal
          from={adding.from}
          exit={adding.exit}
          insert={actions.insert}
          onClose={() => setAdding(undefined)}
          onAdded={(stepId) => {
            setAdding(undefined)
            setSelectedId(stepId)
          }}
        />
      )}
      {starting && <StartExecutionModal workflow={workflow} onClose={() => setStarting(false)} />}
    </>
  )
}

/** With no step selected: every step as a button, so the graph can be worked from the keyboard too. */
function StepList({ steps, onSelect }: { steps: WorkflowStep[]; onSelect(id: string): void }) {
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Steps
      </Title>
      <Text size="sm" c="dimmed">
        Select a step to edit it, add a step after it, or connect its branches. You can also drag from a step's lower
        handle to another step to connect them, and select a connection (click it, or focus it and press Enter) and
        press Delete to remove it.
      </Text>
      <nav aria-label="Steps">
        <Stack gap={4}>
          {steps.map((step) => (
            <Button
              key={step.id}
              variant="subtle"
              justify="flex-start"
              onClick={() => onSelect(step.id)}
              title={step.name}
            >
              <Text span inherit truncate="end">
                {step.name}
              </Text>
            </Button>
          ))}
        </Stack>
      </nav>
    </Stack>
  )
}

/** Enabling asks the API to check every step can run; its refusal names the steps to fix. */
function EnableSwitch({ workflow }: { workflow: WorkflowDetail }) {
  const { project } = useProject()
  const toggle = useWorkflowChange(
    (enabled: boolean) => updateWorkflow(project.id, workflow.id, { enabled }),
    (_, enabled) => (enabled ? 'Workflow enabled' : 'Workflow disabled'),
  )
  return (
    <Stack gap={4} align="flex-end">
      <Switch
        label="Enabled"
        checked={workflow.enabled}
        disabled={toggle.isPending}
        onChange={(event) => toggle.mutate(event.currentTarget.checked)}
      />
      {toggle.error && (
        <Box maw={420}>
          <ErrorAlert error={toggle.error} title="Not changed" />
        </Box>
      )}
    </Stack>
  )
}
