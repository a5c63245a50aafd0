import { Button, Code, Group, Select, Stack, Table, Text } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Fragment, useState } from 'react'
import { useProject } from '../../api/project-context'
import type { WebhookMessage, WebhookMessagePage, WebhookMessageStatus } from '../../api/types'
import { retryWebhookMessage, webhookQueries } from '../../api/webhooks'
import { ColumnHeads } from '../../components/ColumnHeads'
import { notifySuccess } from '../../components/notify'
import { QueryPager } from '../../components/QueryPager'
import { RelativeTime } from '../../components/RelativeTime'
import { EmptyState, ErrorAlert, QueryState } from '../../components/states'
import { TableFrame } from '../../components/TableFrame'
import { useCursors } from '../../components/use-cursors'
import { MessageAttempts } from './MessageAttempts'
import { MessageStatusBadge, messageStatuses } from './webhook-labels'

const pageSize = 20
const columnCount = 6

/**
 * While a message waits for an attempt due soon, the log asks again every 2 seconds; one retried hours from now
 * needs no such haste.
 */
function refreshIntervalMs(page: WebhookMessagePage | undefined): number | false {
  const waiting = page?.data.filter((message) => message.status === 'PENDING') ?? []
  if (waiting.length === 0) return false
  const soon = Date.now() + 30_000
  return waiting.some((message) => !message.nextAttemptAt || Date.parse(message.nextAttemptAt) <= soon) ? 2_000 : 30_000
}

/** The endpoint's messages, newest first: status, event type, attempts (each opened on demand) and Retry. */
export function DeliveryLog({ endpointId, admin }: { endpointId: string; admin: boolean }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<WebhookMessageStatus | null>(null)
  const pages = useCursors()
  const [open, setOpen] = useState<string>()
  const log = useQuery({
    ...webhookQueries.messages(project.id, endpointId, {
      limit: pageSize,
      status: status ?? undefined,
      cursor: pages.cursor,
    }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => refreshIntervalMs(query.state.data),
  })
  const retry = useMutation({
    mutationFn: (messageId: string) => retryWebhookMessage(project.id, endpointId, messageId),
    onSuccess: async (message) => {
      notifySuccess(`The ${message.eventType} message goes out again now, with a new round of retries`, 'Retrying')
      await queryClient.invalidateQueries({ queryKey: webhookQueries.all(project.id) })
    },
  })

  return (
    <Stack gap="sm">
      <Group align="flex-end" justify="space-between">
        <Select
          label="Status"
          placeholder="Every status"
          clearable
          value={status}
          onChange={(value) => {
            setStatus(value as WebhookMessageStatus | null)
            pages.restart()
          }}
          data={messageStatuses}
          w={200}
        />
        {log.data && !pages.cursor && (
          <Text size="sm" c="dimmed" aria-live="polite" data-testid="message-total">
            {log.data.total.toLocaleString()} {log.data.total === 1 ? 'message' : 'messages'}
          </Text>
        )}
      </Group>
      {retry.isError && <ErrorAlert error={retry.error} title="Not retried" />}
      <QueryState query={log} label="Loading the delivery log">
        {(page) =>
          page.data.length === 0 && pages.page === 1 ? (
            <EmptyState title={status ? 'No messages with this status' : 'No deliveries yet'}>
              {status
                ? 'Choose another status, or every status.'
                : 'Each event this endpoint receives appears here with every attempt and its answer. Send a test event to see one.'}
            </EmptyState>
          ) : (
            <TableFrame minWidth={760}>
              <Table aria-label="Delivery log" aria-busy={log.isFetching}>
                <ColumnHeads
                  columns={[
                    'Created',
                    'Event type',
                    'Status',
                    'Attempts',
                    'Last attempt',
                    { key: 'actions', label: <span className="visually-hidden">Actions</span> },
                  ]}
                />
                <Table.Tbody>
                  {page.data.map((message) => (
                    <Fragment key={message.id}>
                      <MessageRow
                        message={message}
                        expanded={open === message.id}
                        onToggle={() => setOpen(open === message.id ? undefined : message.id)}
                        retry={
                          admin
                            ? {
                                run: () => retry.mutate(message.id),
                                pending: retry.isPending && retry.variables === message.id,
                              }
                            : undefined
                        }
                      />
                      {open === message.id && (
                        <Table.Tr id={`attempts-${message.id}`}>
                          <Table.Td colSpan={columnCount} bg="var(--mantine-color-default-hover)">
                            <MessageAttempts endpointId={endpointId} message={message} />
                          </Table.Td>
                        </Table.Tr>
                      )}
                    </Fragment>
                  ))}
                </Table.Tbody>
              </Table>
            </TableFrame>
          )
        }
      </QueryState>
      <QueryPager pages={pages} query={log} />
    </Stack>
  )
}

function MessageRow({
  message,
  expanded,
  onToggle,
  retry,
}: {
  message: WebhookMessage
  expanded: boolean
  onToggle(): void
  retry?: { run(): void; pending: boolean }
}) {
  const when = new Date(message.createdAt).toLocaleString()
  return (
    <Table.Tr data-message-id={message.id}>
      <Table.Td>
        <RelativeTime at={message.createdAt} />
      </Table.Td>
      <Table.Td>
        <Code>{message.eventType}</Code>
      </Table.Td>
      <Table.Td>
        <MessageStatusBadge message={message} />
      </Table.Td>
      <Table.Td>
        <Text size="sm">{message.attemptCount}</Text>
      </Table.Td>
      <Table.Td>
        {message.lastAttemptAt ? <RelativeTime at={message.lastAttemptAt} /> : <Text size="sm">None yet</Text>}
        {message.nextAttemptAt && (
          <Text size="xs" c="dimmed">
            next <RelativeTime at={message.nextAttemptAt} size="xs" />
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Group gap="xs" justify="flex-end" wrap="nowrap">
          <Button
            size="xs"
            variant="default"
            onClick={onToggle}
            aria-expanded={expanded}
            aria-controls={expanded ? `attempts-${message.id}` : undefined}
            aria-label={`${expanded ? 'Hide' : 'Show'} attempts of ${message.eventType} from ${when}`}
          >
            {expanded ? 'Hide attempts' : 'Show attempts'}
          </Button>
          {retry && (
            <Button
              size="xs"
              variant="default"
              onClick={retry.run}
              loading={retry.pending}
              aria-label={`Retry ${message.eventType} from ${when}`}
            >
              Retry
            </Button>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  )
}
