import { Button, Group, Paper, Select, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import type { WorkflowDetail, WorkflowStep } from '../../api/types'
import { exitId, exitLabel, type StepExit, stepExits, transitionOf } from '../../components/workflow-graph/exits'
import type { useGraphActions } from './graph-actions'

/** Each way out of the step: where it leads, and buttons to add a step there, connect it or disconnect it. */
export function StepExits({
  workflow,
  step,
  actions,
  onAdd,
}: {
  workflow: WorkflowDetail
  step: WorkflowStep
  actions: ReturnType<typeof useGraphActions>
  onAdd(exit: StepExit): void
}) {
  const exits = stepExits(step)
  if (exits.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        An exit step ends the flow.
      </Text>
    )
  }
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {exits.length > 1 ? 'Branches' : 'Next step'}
      </Title>
      {exits.map((exit) => (
        <ExitRow key={exitId(exit)} workflow={workflow} step={step} exit={exit} actions={actions} onAdd={onAdd} />
      ))}
    </Stack>
  )
}

function ExitRow({
  workflow,
  step,
  exit,
  actions,
  onAdd,
}: {
  workflow: WorkflowDetail
  step: WorkflowStep
  exit: StepExit
  actions: ReturnType<typeof useGraphActions>
  onAdd(exit: StepExit): void
}) {
  const [target, setTarget] = useState<string | null>(null)
  const transition = transitionOf(step, exit)
  const name = exitLabel(exit)
  const where = name ? `the "${name}" branch` : 'next step'
  const next = workflow.steps.find((candidate) => candidate.id === transition?.toStepId)
  const candidates = workflow.steps.filter((candidate) => candidate.id !== step.id && candidate.type !== 'TRIGGER')
  return (
    <Paper withBorder p="xs">
      <Stack gap={6}>
        <Text size="sm">
          {name && <strong>{name}: </strong>}
          {next ? `leads to ${next.name}` : 'not connected'}
        </Text>
        <Group gap="xs">
          <Button size="xs" variant="light" onClick={() => onAdd(exit)}>
            {name ? `Add step on ${name}` : 'Add step after'}
          </Button>
          {transition && (
            <Button
              size="xs"
              variant="default"
              loading={actions.disconnect.isPending}
              onClick={() => actions.disconnect.mutate(transition.id)}
              aria-label={`Disconnect ${where} of ${step.name}`}
            >
              Disconnect
            </Button>
          )}
        </Group>
        {!transition && candidates.length > 0 && (
          <Group gap="xs" align="flex-end" wrap="nowrap">
            <Select
              size="xs"
              label={name ? `Connect "${name}" to` : 'Connect to'}
              placeholder="Pick a step"
              data={candidates.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
              value={target}
              onChange={setTarget}
              comboboxProps={{ withinPortal: true }}
              style={{ flex: 1 }}
            />
            <Button
              size="xs"
              variant="default"
              disabled={!target}
              loading={actions.connect.isPending}
              onClick={() =>
                target &&
                actions.connect.mutate(
                  { from: step, handle: exitId(exit), toStepId: target },
                  {
                    onSuccess: () => setTarget(null),
                  },
                )
              }
            >
              Connect
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  )
}
