import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import type { StepType, WorkflowStep } from '../../api/types'
import { exitLabel, type StepExit, transitionOf } from '../../components/workflow-graph/exits'
import { GeneralError } from './GeneralError'
import type { useGraphActions } from './graph-actions'
import { stepTypeLabel } from './labels'
import { StepFields } from './StepFields'
import { initialConfig } from './step-forms/StepConfigFields'

/** Every type but the trigger, which each workflow has exactly one of; the labels' keys are every StepType. */
const addableTypes = (Object.keys(stepTypeLabel) as StepType[]).filter((type) => type !== 'TRIGGER')

/** Adds a step on one way out of `from`: at the end of the flow, or in between when that way leads somewhere. */
export function AddStepModal({
  from,
  exit,
  insert,
  onClose,
  onAdded,
}: {
  from: WorkflowStep
  exit: StepExit
  insert: ReturnType<typeof useGraphActions>['insert']
  onClose(): void
  onAdded(stepId: string): void
}) {
  const [type, setType] = useState<StepType>('SEND_EMAIL')
  const [draft, setDraft] = useState({
    name: stepTypeLabel.SEND_EMAIL,
    config: initialConfig('SEND_EMAIL'),
    templateId: null as string | null,
  })
  const between = transitionOf(from, exit) !== undefined
  // An exit ends the flow, so it cannot go between two steps.
  const types = addableTypes.filter((candidate) => !(between && candidate === 'EXIT'))
  const branch = exitLabel(exit)
  const error = insert.error
  return (
    <Modal
      opened
      onClose={onClose}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={`Add a step after ${from.name}`}
      size="lg"
    >
      <form
        onSubmit={(event) => {
          event.preventDefault()
          insert.mutate({ from, exit, step: { type, ...draft } }, { onSuccess: (step) => onAdded(step.id) })
        }}
      >
        <Stack>
          {(branch || between) && (
            <Text size="sm" c="dimmed">
              {branch ? `On the "${branch}" branch. ` : ''}
              {between ? 'The new step goes between this step and the one it leads to now.' : ''}
            </Text>
          )}
          <GeneralError error={error} title="Not added" />
          <Select
            label="Step type"
            data={types.map((value) => ({ value, label: stepTypeLabel[value] }))}
            value={type}
            allowDeselect={false}
            onChange={(value) => {
              const next = types.find((candidate) => candidate === value) ?? 'SEND_EMAIL'
              setType(next)
              setDraft({ name: stepTypeLabel[next], config: initialConfig(next), templateId: null })
              insert.reset()
            }}
            comboboxProps={{ withinPortal: true }}
          />
          <StepFields key={type} type={type} draft={draft} onChange={setDraft} error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={insert.isPending}>
              Add step
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
