import { Code, Group, Stack, Table, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import type { Webhook } from '../../api/types'
import { webhookQueries } from '../../api/webhooks'
import { ColumnHeads } from '../../components/ColumnHeads'
import { RelativeTime } from '../../components/RelativeTime'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { TableFrame } from '../../components/TableFrame'
import { TruncatedLink } from '../../components/TruncatedLink'
import { canAdminister } from '../settings/roles'
import { AddEndpoint } from './AddEndpoint'
import { EndpointStateBadge, EventTypeList, MessageStatusBadge } from './webhook-labels'

/** The project's webhook endpoints: where each one points, what it receives, and how its deliveries go. */
export function WebhooksPage() {
  const { project } = useProject()
  const list = useQuery(webhookQueries.list(project.id))
  const admin = canAdminister(project)
  return (
    <>
      {/* One instance whatever the list shows: the new secret's dialog must outlive the empty state it replaces. */}
      <PageHeader title="Webhooks">{admin && <AddEndpoint />}</PageHeader>
      <Stack gap="md">
        <Text size="sm" c="dimmed" maw={760}>
          Mailroom POSTs each event whose type an endpoint names to its URL as JSON, signed with the endpoint's secret
          (Standard Webhooks: <Code>webhook-id</Code>, <Code>webhook-timestamp</Code> and <Code>webhook-signature</Code>{' '}
          headers). An answer other than 2xx is retried for about a day; an endpoint that keeps failing for days is
          disabled and the project's owners are told.
          {!admin && ' Owners and admins add and change endpoints.'}
        </Text>
        <QueryState query={list} label="Loading webhook endpoints">
          {(endpoints) =>
            endpoints.length === 0 ? (
              <EmptyState title="No webhook endpoints">
                Add the URL of a service that should hear about emails sent, opened and bounced, contacts subscribing,
                or your own tracked events.
              </EmptyState>
            ) : (
              <EndpointTable endpoints={endpoints} busy={list.isFetching} />
            )
          }
        </QueryState>
      </Stack>
    </>
  )
}

function EndpointTable({ endpoints, busy }: { endpoints: Webhook[]; busy: boolean }) {
  return (
    <TableFrame minWidth={760}>
      <Table aria-label="Webhook endpoints" aria-busy={busy} verticalSpacing="sm">
        <ColumnHeads columns={['Endpoint', 'Event types', 'State', 'Last delivery']} />
        <Table.Tbody>
          {endpoints.map((endpoint) => (
            <Table.Tr key={endpoint.id}>
              <Table.Td>
                <TruncatedLink to={`/webhooks/${endpoint.id}`} text={endpoint.url} maw={320} />
                {endpoint.description && (
                  <Text size="xs" c="dimmed" maw={320} truncate="end" title={endpoint.description}>
                    {endpoint.description}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <EventTypeList eventTypes={endpoint.eventTypes} />
              </Table.Td>
              <Table.Td>
                <EndpointState endpoint={endpoint} />
              </Table.Td>
              <Table.Td>
                <LastDelivery endpointId={endpoint.id} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableFrame>
  )
}

function EndpointState({ endpoint }: { endpoint: Webhook }) {
  return (
    <Stack gap={2} align="flex-start">
      <EndpointStateBadge webhook={endpoint} />
      {endpoint.failingSince && (
        <Group gap={4} wrap="nowrap">
          <Text size="xs" c="dimmed">
            Failing since
          </Text>
          <RelativeTime at={endpoint.failingSince} size="xs" />
        </Group>
      )}
    </Stack>
  )
}

/** The newest message of the endpoint's log: its status and when it was last tried (or made). */
function LastDelivery({ endpointId }: { endpointId: string }) {
  const { project } = useProject()
  const newest = useQuery(webhookQueries.messages(project.id, endpointId, { limit: 1 }))
  if (!newest.data) return null
  const [message] = newest.data.data
  if (!message) {
    return (
      <Text size="sm" c="dimmed">
        None yet
      </Text>
    )
  }
  return (
    <Stack gap={2} align="flex-start">
      <MessageStatusBadge message={message} />
      <Group gap={4} wrap="nowrap">
        <Code>{message.eventType}</Code>
        <RelativeTime at={message.lastAttemptAt ?? message.createdAt} size="xs" />
      </Group>
    </Stack>
  )
}
