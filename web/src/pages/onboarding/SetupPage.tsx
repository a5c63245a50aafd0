import { Anchor, Progress, Stack, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { Link } from 'react-router'
import { domainQueries } from '../../api/domains'
import { useProject } from '../../api/project-context'
import { meQuery } from '../../api/session'
import { setupFinished, setupStateQuery, setupSteps } from '../../api/setup-state'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { ResendVerification } from '../auth/ResendVerification'
import { AddDomainForm, DomainCard } from '../domains/DomainsPage'
import { ChecklistItem } from './ChecklistItem'
import { FirstEmailCommand, TrackEventStep } from './snippets'

/** How often the checklist asks the server again while a step is open: DNS, a send and an event all land later. */
const refreshMs = 5_000

/** The onboarding checklist of `GET /projects/:id/setup-state`; each step ticks as soon as the server sees it done. */
export function SetupPage() {
  const { project } = useProject()
  const me = useQuery(meQuery)
  const state = useQuery({
    ...setupStateQuery(project.id),
    refetchInterval: (query) => (query.state.data && setupFinished(query.state.data) ? false : refreshMs),
  })
  const domains = useQuery({
    ...domainQueries.list(project.id),
    refetchInterval: (query) => (query.state.data?.some((domain) => !domain.verified) ? refreshMs : false),
  })
  // A domain added or verified here shows in the checklist at once, not at the next refresh.
  const refetchState = state.refetch
  useEffect(() => {
    if (domains.dataUpdatedAt) void refetchState()
  }, [domains.dataUpdatedAt, refetchState])
  return (
    <>
      <PageHeader title={`Set up ${project.name}`} />
      <Stack gap="lg" maw={1000}>
        {me.data && !me.data.emailVerified && <ResendVerification email={me.data.email} />}
        <QueryState query={state} label="Loading the setup checklist">
          {(setup) => {
            const done = setupSteps.filter((step) => setup[step]).length
            return (
              <>
                <Stack gap={4}>
                  <Text size="sm" aria-live="polite" data-testid="setup-progress">
                    {done} of {setupSteps.length} steps done
                  </Text>
                  <Progress value={(done / setupSteps.length) * 100} aria-label="Setup progress" />
                </Stack>
                {setupFinished(setup) && (
                  <EmptyState title="Your project is ready">
                    Mail sends from a verified domain and events arrive. Next, add{' '}
                    <Anchor underline="always" component={Link} to="/contacts">
                      contacts
                    </Anchor>{' '}
                    or write a{' '}
                    <Anchor underline="always" component={Link} to="/templates">
                      template
                    </Anchor>
                    .
                  </EmptyState>
                )}
                <Stack component="ol" gap="md" p={0} m={0} style={{ listStyle: 'none' }}>
                  <ChecklistItem step={1} title="Add a sender domain" done={setup.domainAdded}>
                    <Text size="sm" c="dimmed" mb="sm">
                      The domain your emails come from. Mailroom lists the DNS records to publish for it.
                    </Text>
                    <AddDomainForm />
                  </ChecklistItem>
                  <ChecklistItem step={2} title="Verify the domain" done={setup.domainVerified}>
                    <Text size="sm" c="dimmed" mb="sm">
                      Publish the records at your DNS provider. Their status refreshes here on its own; DNS changes can
                      take a few minutes to show.
                    </Text>
                    {domains.data?.length ? (
                      <Stack>
                        {domains.data.map((domain) => (
                          <DomainCard key={domain.id} domain={domain} />
                        ))}
                      </Stack>
                    ) : (
                      <Text size="sm">Add a domain first.</Text>
                    )}
                  </ChecklistItem>
                  <ChecklistItem step={3} title="Send a first email" done={setup.firstEmailSent}>
                    <FirstEmailCommand domainsHint="checklist" />
                  </ChecklistItem>
                  <ChecklistItem step={4} title="Track a first event" done={setup.firstEventTracked}>
                    <TrackEventStep email={me.data?.email} />
                  </ChecklistItem>
                </Stack>
              </>
            )
          }}
        </QueryState>
      </Stack>
    </>
  )
}
