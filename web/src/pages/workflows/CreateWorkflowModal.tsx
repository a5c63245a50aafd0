import { Button, Checkbox, Group, Modal, Stack, TextInput } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { createWorkflow, workflowsKey } from '../../api/workflows'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert } from '../../components/states'
import { EventNameInput } from './EventNameInput'

/** A new workflow starts disabled with its trigger step; the editor opens on it. */
export function CreateWorkflowModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [name, setName] = useState('')
  const [eventName, setEventName] = useState('')
  const [allowReentry, setAllowReentry] = useState(false)
  const create = useMutation({
    mutationFn: () => createWorkflow({ name, eventName, allowReentry }),
    onSuccess: async (workflow) => {
      await queryClient.invalidateQueries({ queryKey: workflowsKey(project.id) })
      notifySuccess(`Workflow "${workflow.name}" created`)
      navigate(`/workflows/${workflow.id}`)
    },
  })
  const error = create.error instanceof ApiError ? create.error : undefined
  return (
    <Modal opened={opened} onClose={onClose} title="New workflow">
      <form
        onSubmit={(event) => {
          event.preventDefault()
          create.mutate()
        }}
      >
        <Stack>
          {create.error && (!error || error.general) && <ErrorAlert error={create.error} title="Not created" />}
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
