import { Code, Group, Stack, Table, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { useProject } from '../../api/project-context'
import type { WebhookMessage, WebhookMessageDetail } from '../../api/types'
import { webhookQueries } from '../../api/webhooks'
import { ColumnHeads } from '../../components/ColumnHeads'
import { CopyValue } from '../../components/copy'
import { QueryState } from '../../components/states'
import { attemptOutcome, exactTime } from './webhook-labels'

const wrapped = { whiteSpace: 'pre-wrap', wordBreak: 'break-all' } as const

/**
 * One message opened in the log: its webhook-id, every attempt (time, answer, latency, the answer's first bytes) and
 * the body each attempt sent.
 */
export function MessageAttempts({ endpointId, message }: { endpointId: string; message: WebhookMessage }) {
  const { project } = useProject()
  const detail = useQuery(webhookQueries.message(project.id, endpointId, message.id))
  // The row is the log's newest word on the message (the log polls while it is pending): when it moves, so do the
  // attempts. The first run finds the detail just fetched and asks nothing.
  const { refetch, dataUpdatedAt } = detail
  const seen = `${message.status} ${message.attemptCount} ${message.lastAttemptAt}`
  const fetchedFor = useRef(seen)
  useEffect(() => {
    if (fetchedFor.current === seen || dataUpdatedAt === 0) return
    fetchedFor.current = seen
    void refetch()
  }, [seen, refetch, dataUpdatedAt])
  return (
    <QueryState query={detail} label="Loading the attempts">
      {(loaded) => <Attempts message={loaded} />}
    </QueryState>
  )
}

function Attempts({ message }: { message: WebhookMessageDetail }) {
  return (
    <Stack gap="sm" py="xs">
      <Group gap={4}>
        <Text size="sm" c="dimmed">
          webhook-id
        </Text>
        <Code>{message.id}</Code>
        <CopyValue value={message.id} label="webhook-id" />
      </Group>
      {message.attempts.length === 0 ? (
        <Text size="sm">No attempt yet.</Text>
      ) : (
        <Table aria-label={`Attempts of ${message.eventType}`} withTableBorder verticalSpacing="xs">
          <ColumnHeads columns={['Time', 'Response', 'Latency', 'Answer (first 1,000 characters)']} />
          <Table.Tbody>
            {message.attempts.map((attempt) => (
              <Table.Tr key={`${attempt.at}-${attempt.latencyMs}`}>
                <Table.Td>
                  <Text size="sm" component="time" dateTime={attempt.at}>
                    {exactTime(attempt.at)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" fw={600} c={attempt.succeeded ? 'teal' : 'red'}>
                    {attemptOutcome(attempt)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{attempt.latencyMs} ms</Text>
                </Table.Td>
                <Table.Td>
                  {attempt.responseBody ? (
                    <Code block style={wrapped}>
                      {attempt.responseBody}
                    </Code>
                  ) : (
                    <Text size="sm" c="dimmed">
                      Empty
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Text size="sm" c="dimmed">
        Body sent with each attempt
      </Text>
      <Code block style={wrapped}>
        {JSON.stringify(message.payload, null, 2)}
      </Code>
    </Stack>
  )
}
