import { Alert, Code, Group, List, Stack, Text } from '@mantine/core'
import { CopyValue } from '../../components/copy'

/**
 * A signing secret as the API answers it, on creation or rotation only: Mailroom keeps it sealed and never shows it
 * again, so this is the one chance to copy it.
 */
export function SecretOnce({ secret }: { secret: string }) {
  return (
    <Stack gap="xs">
      <Alert color="indigo.9" variant="outline" title="Copy the signing secret now">
        <Text size="sm">
          It is shown this once: Mailroom cannot show it again. Your receiver checks each delivery's{' '}
          <Code>webhook-signature</Code> header with it (Standard Webhooks).
        </Text>
      </Alert>
      <Group gap="xs" wrap="nowrap" align="center">
        <Code data-testid="webhook-secret" style={{ wordBreak: 'break-all' }}>
          {secret}
        </Code>
        <CopyValue value={secret} label="signing secret" />
      </Group>
    </Stack>
  )
}

/** Event types the API accepted but knows nothing of: allowed (a custom event may come later), said plainly. */
export function EventTypeWarnings({ warnings }: { warnings: string[] }) {
  if (warnings.length === 0) return null
  return (
    <Alert color="indigo.9" variant="outline" title="Some event types match nothing known yet" role="status">
      <List size="sm" spacing={2}>
        {warnings.map((warning) => (
          <List.Item key={warning}>{warning}</List.Item>
        ))}
      </List>
    </Alert>
  )
}
