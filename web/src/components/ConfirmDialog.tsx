import { Alert, Button, Group, Modal, Stack } from '@mantine/core'
import type { ReactNode } from 'react'
import { ErrorAlert } from './states'

/** Asks before an action that cannot be undone; the warning says what is lost, the button says what happens. */
export function ConfirmDialog({
  opened,
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
  pending,
  error,
}: {
  opened: boolean
  title: string
  children: ReactNode
  confirmLabel: string
  onConfirm(): void
  onClose(): void
  pending?: boolean
  error?: unknown
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        <Alert color="red" variant="light">
          {children}
        </Alert>
        {error ? <ErrorAlert error={error} title="Not done" /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red.9" loading={pending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  )
}
