import { Badge, Button, CloseButton, Divider, Group, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import type { WorkflowDetail, WorkflowStep } from '../../api/types'
import { updateStep, updateWorkflow } from '../../api/workflows'
import type { StepExit } from '../../components/workflow-graph/exits'
import { ConfirmModal } from './ConfirmModal'
import { EventNameInput } from './EventNameInput'
import { GeneralError } from './GeneralError'
import type { useGraphActions } from './graph-actions'
import { stepTypeLabel } from './labels'
import { StepExits } from './StepExits'
import { StepFields } from './StepFields'
import { useWorkflowChange } from './use-workflow-change'

/** The selected step: its config form, its ways out, and deleting it. */
export function StepPanel({
  workflow,
  step,
  actions,
  onAdd,
  onClose,
}: {
  workflow: WorkflowDetail
  step: WorkflowStep
  actions: ReturnType<typeof useGraphActions>
  onAdd(exit: StepExit): void
  onClose(): void
}) {
  const [deleting, setDeleting] = useState<{ splice: boolean }>()
  const branching = step.type === 'CONDITION' || step.type === 'WAIT_FOR_EVENT'
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div>
          <Badge color={step.type === 'TRIGGER' ? 'violet.9' : 'gray.8'}>{stepTypeLabel[step.type]}</Badge>
          <Title order={2} size="h4" mt={4}>
            {step.name}
          </Title>
        </div>
        <CloseButton aria-label="Close step panel" onClick={onClose} />
      </Group>
      {step.type === 'TRIGGER' ? <TriggerForm workflow={workflow} /> : <StepForm workflow={workflow} step={step} />}
      <Divider />
      <StepExits workflow={workflow} step={step} actions={actions} onAdd={onAdd} />
      {step.type !== 'TRIGGER' && (
        <>
          <Divider />
          <Group gap="xs">
            {!branching && (
              <Button size="xs" color="red" variant="light" onClick={() => setDeleting({ splice: true })}>
                Delete and reconnect
              </Button>
            )}
            <Button size="xs" color="red" variant="subtle" onClick={() => setDeleting({ splice: false })}>
              Delete step
            </Button>
          </Group>
        </>
      )}
      <ConfirmModal
        opened={deleting !== undefined}
        onClose={() => {
          actions.remove.reset()
          setDeleting(undefined)
        }}
        title={`Delete ${step.name}?`}
        confirmLabel="Delete step"
        pending={actions.remove.isPending}
        error={actions.remove.error}
        onConfirm={() =>
          deleting &&
          actions.remove.mutate(
            { step, splice: deleting.splice },
            {
              onSuccess: () => {
                setDeleting(undefined)
                onClose()
              },
            },
          )
        }
      >
        {deleting?.splice
          ? 'The step goes, and the steps leading to it are connected to the step after it.'
          : 'The step and its connections go; the steps after it stay, unconnected.'}
      </ConfirmModal>
    </Stack>
  )
}

function StepForm({ workflow, step }: { workflow: WorkflowDetail; step: WorkflowStep }) {
  const { project } = useProject()
  const [draft, setDraft] = useState({ name: step.name, config: step.config, templateId: step.templateId })
  const save = useWorkflowChange(
    () =>
      updateStep(project.id, workflow.id, step.id, {
        name: draft.name,
        config: draft.config,
        templateId: draft.templateId,
      }),
    () => `Step "${draft.name}" saved`,
  )
  const error = save.error
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        save.mutate()
      }}
    >
      <Stack gap="sm">
        <GeneralError error={error} title="Not saved" />
        <StepFields type={step.type} draft={draft} onChange={setDraft} error={error} />
        <Group>
          <Button type="submit" size="sm" loading={save.isPending}>
            Save step
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

/** The trigger's event belongs to the workflow: changing it renames the trigger step too. */
function TriggerForm({ workflow }: { workflow: WorkflowDetail }) {
  const { project } = useProject()
  const current = typeof workflow.triggerConfig?.eventName === 'string' ? workflow.triggerConfig.eventName : ''
  const [eventName, setEventName] = useState(current)
  const save = useWorkflowChange(
    () => updateWorkflow(project.id, workflow.id, { triggerType: 'EVENT', triggerConfig: { eventName } }),
    () => 'Trigger saved',
  )
  const error = save.error instanceof ApiError ? save.error : undefined
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        save.mutate()
      }}
    >
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          The workflow starts for a contact each time this event is tracked for them.
        </Text>
        <GeneralError error={save.error} title="Not saved" />
        <EventNameInput
          label="Trigger event"
          required
          value={eventName}
          onChange={setEventName}
          error={error?.forField('triggerConfig.eventName')}
        />
        <Group>
          <Button type="submit" size="sm" loading={save.isPending} disabled={eventName === current}>
            Save trigger
          </Button>
        </Group>
      </Stack>
    </form>
  )
}
