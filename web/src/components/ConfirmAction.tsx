import { Button, type ButtonProps, Group, Modal, Stack, Text } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { useMutation } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { ErrorAlert } from './states'

/**
 * A button that asks before a weighty action: a dialog saying what happens, the API's error inside it when the
 * action is refused (a 409, say), and the dialog closed once it succeeds.
 */
export function ConfirmAction({
  label,
  title,
  children,
  confirmLabel,
  action,
  onDone,
  buttonProps,
  color = 'red.9',
}: {
  label: string
  title: string
  children: ReactNode
  confirmLabel: string
  action(): Promise<unknown>
  onDone?: () => void
  /** `aria-label` names the button apart from its neighbours' (a "Revoke" on every row, say). */
  buttonProps?: ButtonProps & { 'aria-label'?: string }
  /** Red for what cannot be undone; another colour for a weighty but wanted action (send now). */
  color?: string
}) {
  const [opened, dialog] = useDisclosure(false)
  const run = useMutation({
    mutationFn: action,
    onSuccess: () => {
      dialog.close()
      onDone?.()
    },
  })
  return (
    <>
      <Button
        color={color}
        variant="outline"
        {...buttonProps}
        onClick={() => {
          run.reset()
          dialog.open()
        }}
      >
        {label}
      </Button>
      <Modal opened={opened} onClose={dialog.close} title={title} centered closeButtonProps={{ 'aria-label': 'Close' }}>
        <Stack>
          <Text size="sm">{children}</Text>
          {run.isError && <ErrorAlert error={run.error} title={`${confirmLabel} failed`} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={dialog.close}>
              Keep it
            </Button>
            <Button color={color} loading={run.isPending} onClick={() => run.mutate()}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  )
}
