import { Button, Checkbox, Group, Modal, Stack, TextInput } from '@mantine/core'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { createWorkflow } from '../../api/workflows'
import { EventNameInput } from './EventNameInput'
import { GeneralError } from './GeneralError'
import { useWorkflowChange } from './use-workflow-change'

/** A new workflow starts disabled with its trigger step; the editor opens on it. */
export function CreateWorkflowModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { project } = useProject()
  const navigate = useNavigate()
  const [name, setName] = useState('')
  const [eventName, setEventName] = useState('')
  const [allowReentry, setAllowReentry] = useState(false)
  const create = useWorkflowChange(
    () => createWorkflow(project.id, { name, eventName, allowReentry }),
    (workflow) => `Workflow "${workflow.name}" created`,
  )
  const error = create.error instanceof ApiError ? create.error : undefined
  return (
    <Modal opened={opened} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="New workflow">
      <form
        onSubmit={(event) => {
          event.preventDefault()
          create.mutate(undefined, { onSuccess: (workflow) => navigate(`/workflows/${workflow.id}`) })
        }}
      >
        <Stack>
          <GeneralError error={create.error} title="Not created" />
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={error?.forField('name')}
            data-autofocus
          />
          <EventNameInput
            label="Trigger event"
            description="The workflow starts for a contact when this event is tracked for them."
            required
            value={eventName}
            onChange={setEventName}
            error={error?.forField('eventName')}
          />
          <Checkbox
            label="Allow re-entry (a contact may run through the workflow again)"
            checked={allowReentry}
            onChange={(event) => setAllowReentry(event.currentTarget.checked)}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create workflow
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
