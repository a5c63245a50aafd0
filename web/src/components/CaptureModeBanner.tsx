import { Code, Paper, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { configQuery } from '../api/config'

/**
 * Says, on every page, that this server sends nothing (MAIL_TRANSPORT=capture, the default) and how to make it
 * send: otherwise a first user takes the silence of their inbox for a broken install. A landmark, not an alert: it is
 * a standing fact of the server, not news. No link in it is named "Mailbox": the menu's is, on every page.
 */
export function CaptureModeBanner() {
  const config = useQuery(configQuery)
  if (config.data?.transport !== 'capture') return null
  return (
    <Paper
      component="aside"
      aria-label="Capture mode"
      withBorder
      px="sm"
      py={6}
      mb="md"
      style={{ borderLeft: '4px solid var(--mantine-color-indigo-9)' }}
    >
      <Text size="sm">
        <strong>Capture mode: nothing leaves this machine.</strong> Every email, account emails included, is kept in the
        Mailbox instead of being sent. To send for real, restart the server with <Code>MAIL_TRANSPORT=smtp</Code> and{' '}
        <Code>SMTP_URL=smtp://user:password@host:587</Code>, or <Code>MAIL_TRANSPORT=ses</Code>, after verifying your
        sender domain (README, “Sender of account emails”).
      </Text>
    </Paper>
  )
}
