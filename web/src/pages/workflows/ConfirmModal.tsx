import { Button, Group, Modal, Stack, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { ErrorAlert } from '../../components/states'

/** A yes/no question for a destructive action; the API's refusal (a 409, say) is shown in the dialog itself. */
export function ConfirmModal({
  opened,
  onClose,
  title,
  children,
  confirmLabel,
  onConfirm,
  pending,
  error,
}: {
  opened: boolean
  onClose(): void
  title: string
  children: ReactNode
  confirmLabel: string
  onConfirm(): void
  pending: boolean
  error: Error | null
}) {
  return (
    <Modal opened={opened} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={title}>
      <Stack>
        <Text size="sm">{children}</Text>
        {error && <ErrorAlert error={error} title="Not done" />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={pending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  )
}
