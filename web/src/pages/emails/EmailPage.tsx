import { Anchor, Code, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { Link, useParams } from 'react-router'
import { campaignQueries } from '../../api/campaigns'
import { emailQueries } from '../../api/emails'
import { useProject } from '../../api/project-context'
import type { EmailTimeline as Email } from '../../api/types'
import { CopyValue } from '../../components/copy'
import { RelativeTime } from '../../components/RelativeTime'
import { NotFound, PageHeader, QueryState } from '../../components/states'
import { EmailTimeline } from './EmailTimeline'
import { EmailStatusBadge, RelayedBadge, sizeOf, sourceOf } from './email-labels'

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Still in the outbox: its story goes on by the second, so the page asks again until it leaves. */
const moving = (email: Email | undefined) => email?.status === 'QUEUED' || email?.status === 'SENDING'

/** One email's story, for the person asked "was it sent?": its facts, then every step it went through. */
export function EmailPage() {
  const { id = '' } = useParams()
  const { project } = useProject()
  const valid = uuid.test(id)
  const email = useQuery({
    ...emailQueries.detail(project.id, id),
    enabled: valid,
    refetchInterval: (query) => (moving(query.state.data) ? 2_000 : false),
  })
  return (
    <>
      <Anchor component={Link} to="/emails" size="sm">
        ← All emails
      </Anchor>
      <Stack mt="sm">
        {valid ? (
          <QueryState query={email} label="Loading the email">
            {(loaded) => <EmailView email={loaded} />}
          </QueryState>
        ) : (
          <NotFound message={`“${id}” is not an email id`} />
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

const addressOf = (address: { email: string; name: string | null }) =>
  address.name ? `${address.name} <${address.email}>` : address.email

/** The campaign by its name (a deleted one's emails keep their id, and the link says so when it is gone). */
function CampaignLink({ id }: { id: string }) {
  const { project } = useProject()
  const campaign = useQuery(campaignQueries.detail(project.id, id))
  return (
    <Anchor component={Link} to={`/campaigns/${id}`} size="sm">
      {campaign.data ? `The campaign “${campaign.data.name}”` : 'The campaign'}
    </Anchor>
  )
}

function SentFor({ email }: { email: Email }) {
  if (email.campaignId) return <CampaignLink id={email.campaignId} />
  if (email.workflowId) {
    const to = email.workflowExecutionId
      ? `/workflows/${email.workflowId}/executions/${email.workflowExecutionId}`
      : `/workflows/${email.workflowId}`
    return (
      <Anchor component={Link} to={to} size="sm">
        {email.workflowExecutionId ? 'The workflow’s execution' : 'The workflow'}
      </Anchor>
    )
  }
  return 'A transactional send'
}

function EmailView({ email }: { email: Email }) {
  const people = email.opens - email.machineOpens
  const clicks = email.clicks - email.machineClicks
  return (
    <>
      <PageHeader title={email.subject || '(no subject)'}>
        {email.relayed && <RelayedBadge />}
        <span data-testid="email-status">
          <EmailStatusBadge status={email.status} />
        </span>
      </PageHeader>
      <Group gap={4}>
        <Text size="sm" c="dimmed">
          Email id
        </Text>
        <Code data-testid="email-id">{email.id}</Code>
        <CopyValue value={email.id} label="email id" />
      </Group>
      <Paper withBorder p="md">
        <SimpleGrid component="dl" cols={{ base: 1, xs: 2, md: 3 }} spacing="md" m={0}>
          <Fact label="To">{addressOf(email.to)}</Fact>
          <Fact label="Contact">
            {email.contactId ? (
              <Anchor component={Link} to={`/contacts/${email.contactId}`} size="sm">
                {email.to.email}
              </Anchor>
            ) : (
              'None (the contact was deleted)'
            )}
          </Fact>
          <Fact label="From">{addressOf(email.from)}</Fact>
          <Fact label="Sent for">
            <SentFor email={email} />
          </Fact>
          <Fact label="Template">
            {email.templateId ? (
              <Anchor component={Link} to={`/templates/${email.templateId}`} size="sm">
                The template
              </Anchor>
            ) : (
              'None'
            )}
          </Fact>
          <Fact label="Source">{sourceOf(email)}</Fact>
          <Fact label="Accepted">
            {new Date(email.createdAt).toLocaleString()} (<RelativeTime at={email.createdAt} />)
          </Fact>
          <Fact label="Attempts">{email.attempts}</Fact>
          <Fact label="Size">{email.sizeBytes === null ? 'Composed at sending' : sizeOf(email.sizeBytes)}</Fact>
          <Fact label="Message-ID">{email.messageId}</Fact>
          {email.replyTo && <Fact label="Reply-To">{email.replyTo}</Fact>}
          <Fact label="Opens and clicks">
            {email.tracked
              ? `${people} ${people === 1 ? 'open' : 'opens'}, ${clicks} ${clicks === 1 ? 'click' : 'clicks'} by people; ` +
                `${email.machineOpens + email.machineClicks} by machines`
              : 'Not tracked'}
          </Fact>
          {email.nextAttemptAt && (
            <Fact label="Next attempt">
              {new Date(email.nextAttemptAt).toLocaleString()} (<RelativeTime at={email.nextAttemptAt} />)
            </Fact>
          )}
          {email.lastError && <Fact label="Last error">{email.lastError}</Fact>}
        </SimpleGrid>
      </Paper>
      <section aria-labelledby="email-timeline">
        <Title order={2} size="h4" mb="xs" id="email-timeline">
          Timeline
        </Title>
        <EmailTimeline history={email.history} />
      </section>
    </>
  )
}
