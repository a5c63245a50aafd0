import { Button, Code, Group, Paper, Stack, Text, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import type { Webhook, WebhookMessageDetail } from '../../api/types'
import { sendWebhookTest, webhookQueries } from '../../api/webhooks'
import { ErrorAlert } from '../../components/states'
import { attemptOutcome, exactTime } from './webhook-labels'

/** "Send test event": a `webhook.test` message to this endpoint alone, then what the endpoint answered. */
export function TestEvent({ endpoint }: { endpoint: Webhook }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const send = useMutation({
    mutationFn: () => sendWebhookTest(project.id, endpoint.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookQueries.all(project.id) }),
  })
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="test-title">
      <Title order={2} size="h4" id="test-title" mb="xs">
        Test event
      </Title>
      <Stack gap="sm">
        <Text size="sm">
          Sends a <Code>webhook.test</Code> event to this endpoint only, signed and retried like any other.
        </Text>
        <Group>
          <Button variant="default" onClick={() => send.mutate()} loading={send.isPending} disabled={!endpoint.enabled}>
            Send test event
          </Button>
          {!endpoint.enabled && (
            <Text size="sm" c="dimmed">
              Enable the endpoint to send one.
            </Text>
          )}
        </Group>
        {send.isError && <ErrorAlert error={send.error} title="Test event not sent" />}
        {send.data && <TestResult endpointId={endpoint.id} messageId={send.data.id} />}
      </Stack>
    </Paper>
  )
}

/** Follows the test message until its first attempt has an answer (or none came). */
function TestResult({ endpointId, messageId }: { endpointId: string; messageId: string }) {
  const { project } = useProject()
  const message = useQuery({
    ...webhookQueries.message(project.id, endpointId, messageId),
    refetchInterval: (query) => (query.state.data?.attempts.length ? false : 1_000),
  })
  return (
    <div role="status" aria-live="polite" data-testid="test-result">
      {message.data ? <Outcome message={message.data} /> : <Text size="sm">Test event sent…</Text>}
    </div>
  )
}

function Outcome({ message }: { message: WebhookMessageDetail }) {
  const attempt = message.attempts.at(-1)
  if (!attempt) {
    return (
      <Text size="sm">
        Test event <Code>{message.id}</Code> is on its way; waiting for the endpoint's answer…
      </Text>
    )
  }
  const retry = message.status === 'PENDING' && message.nextAttemptAt
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600} c={attempt.succeeded ? 'teal' : 'red'}>
        {attempt.succeeded ? 'Delivered' : 'Not delivered'}: {attemptOutcome(attempt)} in {attempt.latencyMs} ms
      </Text>
      {attempt.responseBody && (
        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
          {attempt.responseBody}
        </Code>
      )}
      {retry && (
        <Text size="sm" c="dimmed">
          Mailroom tries again at {exactTime(retry)}; the delivery log below follows it.
        </Text>
      )}
    </Stack>
  )
}
