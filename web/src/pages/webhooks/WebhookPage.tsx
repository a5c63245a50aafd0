import { Alert, Anchor, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { Link, useParams } from 'react-router'
import { useProject } from '../../api/project-context'
import type { Webhook } from '../../api/types'
import { webhookQueries } from '../../api/webhooks'
import { NotFound, PageHeader, QueryState } from '../../components/states'
import { canAdminister } from '../settings/roles'
import { DeliveryLog } from './DeliveryLog'
import { EndpointActions } from './EndpointActions'
import { ReplayForm } from './ReplayForm'
import { SigningSecret } from './SigningSecret'
import { TestEvent } from './TestEvent'
import { EndpointStateBadge, EventTypeList, exactTime } from './webhook-labels'

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** One endpoint: its settings and secret, a test event, and its delivery log with retry and replay. */
export function WebhookPage() {
  const { id = '' } = useParams()
  const { project } = useProject()
  const valid = uuid.test(id)
  const endpoint = useQuery({ ...webhookQueries.detail(project.id, id), enabled: valid })
  return (
    <>
      <Anchor component={Link} to="/webhooks" size="sm">
        ← All endpoints
      </Anchor>
      <Stack mt="sm">
        {valid ? (
          <QueryState query={endpoint} label="Loading the endpoint">
            {(loaded) => <EndpointView endpoint={loaded} />}
          </QueryState>
        ) : (
          <NotFound message={`“${id}” is not a webhook endpoint id`} />
        )}
      </Stack>
    </>
  )
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text component="dt" size="xs" c="dimmed">
        {label}
      </Text>
      <Text component="dd" size="sm" m={0} style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  )
}

function EndpointView({ endpoint }: { endpoint: Webhook }) {
  const { project } = useProject()
  const admin = canAdminister(project)
  return (
    <>
      <PageHeader title={endpoint.url}>
        <span data-testid="endpoint-state">
          <EndpointStateBadge webhook={endpoint} />
        </span>
      </PageHeader>
      <EndpointHealth endpoint={endpoint} />
      <Paper withBorder p="md">
        <SimpleGrid component="dl" cols={{ base: 1, sm: 2 }} spacing="md" m={0}>
          <Fact label="Description">{endpoint.description || 'None'}</Fact>
          <Fact label="Event types">
            <EventTypeList eventTypes={endpoint.eventTypes} />
          </Fact>
          <Fact label="Added">{exactTime(endpoint.createdAt)}</Fact>
          <Fact label="Last changed">{exactTime(endpoint.updatedAt)}</Fact>
        </SimpleGrid>
        {admin ? (
          <EndpointActions endpoint={endpoint} />
        ) : (
          <Text size="sm" c="dimmed" mt="md">
            Owners and admins change, test and delete endpoints, rotate their secrets and send messages again.
          </Text>
        )}
      </Paper>
      <SigningSecret endpoint={endpoint} admin={admin} />
      {admin && <TestEvent endpoint={endpoint} />}
      <Paper withBorder p="md" component="section" aria-labelledby="delivery-log-title">
        <Title order={2} size="h4" id="delivery-log-title" mb="xs">
          Delivery log
        </Title>
        <DeliveryLog endpointId={endpoint.id} admin={admin} />
      </Paper>
      {admin && <ReplayForm endpointId={endpoint.id} />}
    </>
  )
}

/** Why nothing arrives: disabled by Mailroom after failing, or failing now and heading there. */
function EndpointHealth({ endpoint }: { endpoint: Webhook }) {
  if (endpoint.disabledReason === 'failing') {
    return (
      <Alert color="red.9" variant="outline" title="Disabled by Mailroom: it kept failing" role="status">
        <Text size="sm">
          Every attempt since {endpoint.failingSince ? exactTime(endpoint.failingSince) : 'days ago'} failed, so
          Mailroom stopped sending to it and emailed the project's owners. Fix the receiver (the delivery log below
          shows what it answered), then enable the endpoint: the messages waiting for a retry go out again. Events while
          it is disabled make no messages for it.
        </Text>
      </Alert>
    )
  }
  if (endpoint.enabled && endpoint.failingSince) {
    return (
      <Alert color="red.9" variant="outline" title="Failing" role="status">
        <Text size="sm">
          Every attempt since {exactTime(endpoint.failingSince)} failed. Mailroom keeps retrying; if the endpoint keeps
          failing for days, it is disabled.
        </Text>
      </Alert>
    )
  }
  return null
}
