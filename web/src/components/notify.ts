import { notifications } from '@mantine/notifications'

/**
 * A success toast; its close button gets a name, which Mantine's icon-only button lacks. Under a title Mantine greys
 * the message to gray 6 (3.3:1 on white) or dark 2 (3.5:1 on a dark toast): the dimmed colour passes in both schemes.
 */
export function notifySuccess(message: string, title?: string): void {
  notifications.show({
    color: 'teal',
    title,
    message,
    closeButtonProps: { 'aria-label': 'Dismiss' },
    styles: { description: { color: 'var(--mantine-color-dimmed)' } },
  })
}
