import { notifications } from '@mantine/notifications'

/** A success toast; its close button gets a name, which Mantine's icon-only button lacks. */
export function notifySuccess(message: string, title?: string): void {
  notifications.show({ color: 'teal', title, message, closeButtonProps: { 'aria-label': 'Dismiss' } })
}
