import { Alert, Button, Group, Modal, Stack, TextInput } from '@mantine/core'
import type { UseMutationResult } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { ApiError } from '../../api/client'
import { ErrorAlert } from '../../components/states'

/** An irreversible action that runs only after the project's name is typed, as the API's `{confirm}` requires. */
export function ConfirmByName({
  opened,
  onClose,
  title,
  warning,
  action,
  projectName,
  mutation,
}: {
  opened: boolean
  onClose(): void
  title: string
  warning: string
  action: string
  projectName: string
  mutation: UseMutationResult<unknown, Error, string>
}) {
  const [typed, setTyped] = useState('')
  const error = mutation.error instanceof ApiError ? mutation.error : undefined
  const close = () => {
    setTyped('')
    mutation.reset()
    onClose()
  }
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    mutation.mutate(typed)
  }
  return (
    <Modal opened={opened} onClose={close} title={title} centered closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          <Alert color="red.9" variant="outline">
            {warning}
          </Alert>
          {mutation.isError && (!error || error.general) && <ErrorAlert error={mutation.error} />}
          <TextInput
            label={`Type ${projectName} to confirm`}
            autoComplete="off"
            value={typed}
            onChange={(event) => setTyped(event.currentTarget.value)}
            error={error?.forField('confirm')}
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" color="red.9" disabled={typed !== projectName} loading={mutation.isPending}>
              {action}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
