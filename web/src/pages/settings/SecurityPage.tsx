import { Alert, Badge, Button, Group, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import { resumeSending, securityQuery } from '../../api/security'
import type { Project, Security } from '../../api/types'
import { notifySuccess } from '../../components/notify'
import { EmptyState, ErrorAlert, QueryState } from '../../components/states'
import { TableScroll } from '../../components/TableFrame'
import { isOwner } from './roles'

type RateWindow = Security['sevenDay']

const windows: { key: 'twentyFourHour' | 'sevenDay' | 'allTime'; label: string }[] = [
  { key: 'twentyFourHour', label: 'Last 24 hours' },
  { key: 'sevenDay', label: 'Last 7 days' },
  { key: 'allTime', label: 'All time' },
]

/** The guard's reasons are phrases; the alerts go on after them. */
const sentence = (text: string | null) => (text && !/[.!?]$/.test(text) ? `${text}.` : text)

const percent = (value: number) => `${value.toLocaleString(undefined, { maximumFractionDigits: 2 })}%`

export function SecurityPage() {
  const { project } = useProject()
  const security = useQuery(securityQuery(project.id))
  return (
    <QueryState query={security} label="Loading sending health">
      {(state) => (
        <Stack gap="lg" maw={900}>
          <SendingState project={project} state={state} />
          <StreamsTable state={state} />
          <RatesTable state={state} />
          <Suspensions state={state} />
        </Stack>
      )}
    </QueryState>
  )
}

function SendingState({ project, state }: { project: Project; state: Security }) {
  const queryClient = useQueryClient()
  const resume = useMutation({
    mutationFn: () => resumeSending(project.id),
    onSuccess: (updated) => {
      queryClient.setQueryData(securityQuery(project.id).queryKey, updated)
      notifySuccess('Held emails are on their way again.', 'Sending resumed')
    },
  })
  const marketing = state.streams.marketing
  const resumeControl = (
    <>
      {resume.isError && <ErrorAlert error={resume.error} title="Not resumed" />}
      {isOwner(project) ? (
        <Button color="red.9" size="xs" loading={resume.isPending} onClick={() => resume.mutate()}>
          Resume sending
        </Button>
      ) : (
        <Text size="sm">Only an owner of the project can resume sending.</Text>
      )}
    </>
  )
  if (state.sending === 'PAUSED')
    return (
      <Alert color="red.9" variant="outline" title="Sending is paused" role="status">
        <Text size="sm" mb="xs">
          {sentence(state.pausedReason)} Emails accepted meanwhile are held and go out when sending resumes.
        </Text>
        {resumeControl}
      </Alert>
    )
  if (marketing.sending === 'PAUSED')
    return (
      <Alert color="red.9" variant="outline" title="Marketing sending is paused" role="status">
        <Text size="sm" mb="xs">
          {sentence(marketing.pausedReason)} Campaigns cannot start, and marketing emails queued meanwhile are held
          until sending resumes. Transactional mail (password resets, receipts, SMTP relay) still goes out.
        </Text>
        {resumeControl}
      </Alert>
    )
  return (
    <Alert color={state.isHealthy ? 'teal.9' : 'red.9'} variant="outline" title="Sending is active" role="status">
      {state.isHealthy
        ? 'Bounce and complaint rates are below the thresholds.'
        : 'A 7-day rate is at or over its threshold: marketing pauses if its own rate stays there.'}
    </Alert>
  )
}

const streamRows: { key: 'marketing' | 'transactional'; label: string; what: string }[] = [
  { key: 'marketing', label: 'Marketing', what: 'Campaigns and MARKETING templates' },
  { key: 'transactional', label: 'Transactional', what: 'Sends, transactional templates, SMTP relay' },
]

/** Each stream's 7-day rates against the rate that pauses it: marketing at the threshold, the rest at the ceiling. */
function StreamsTable({ state }: { state: Security }) {
  const { thresholds } = state
  const limits = {
    marketing: { bounce: thresholds.bounceRate, complaint: thresholds.complaintRate },
    transactional: { bounce: thresholds.ceilingBounceRate, complaint: thresholds.ceilingComplaintRate },
  }
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="security-streams">
      <Title order={2} size="h4" mb="xs" id="security-streams">
        Rates by stream
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {thresholds.enabled
          ? `Marketing mail pauses when its own 7-day bounce rate reaches ${percent(thresholds.bounceRate)} or its complaint rate ${percent(thresholds.complaintRate)}. Transactional mail keeps flowing; all sending pauses only when its rates reach ${percent(thresholds.ceilingBounceRate)} or ${percent(thresholds.ceilingComplaintRate)}. Each needs at least ${thresholds.minimumSent.toLocaleString()} emails of the stream in 7 days.`
          : 'The automatic pause is turned off on this server.'}
      </Text>
      <TableScroll minWidth={640}>
        <Table verticalSpacing="sm" aria-label="Rates by stream">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Stream</Table.Th>
              <Table.Th scope="col">Sending</Table.Th>
              <Table.Th scope="col">Sent in 7 days</Table.Th>
              <Table.Th scope="col">Bounce rate</Table.Th>
              <Table.Th scope="col">Complaint rate</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {streamRows.map(({ key, label, what }) => {
              const stream = state.streams[key]
              const week = stream.sevenDay
              const limit = limits[key]
              return (
                <Table.Tr key={key}>
                  <Table.Th scope="row">
                    <Text size="sm" fw={600}>
                      {label}
                    </Text>
                    <Text size="xs" c="dimmed" fw={400}>
                      {what}
                    </Text>
                  </Table.Th>
                  <Table.Td>
                    <Badge color={stream.sending === 'PAUSED' ? 'red.9' : 'teal.9'} size="sm">
                      {stream.sending === 'PAUSED' ? 'Paused' : 'Active'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{week.total.toLocaleString()}</Table.Td>
                  <Table.Td>
                    <Rate value={week.bounceRate} high={week.bounceRate >= limit.bounce} />
                    <Text size="xs" c="dimmed">
                      pauses at {percent(limit.bounce)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Rate value={week.complaintRate} high={week.complaintRate >= limit.complaint} />
                    <Text size="xs" c="dimmed">
                      pauses at {percent(limit.complaint)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              )
            })}
          </Table.Tbody>
        </Table>
      </TableScroll>
    </Paper>
  )
}

function RatesTable({ state }: { state: Security }) {
  const { thresholds } = state
  const over = (window: RateWindow) => ({
    bounce: window.bounceRate >= thresholds.bounceRate,
    complaint: window.complaintRate >= thresholds.complaintRate,
  })
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="security-rates">
      <Title order={2} size="h4" mb="xs" id="security-rates">
        Bounce and complaint rates
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        All of the project's mail, both streams together, against the marketing thresholds.
      </Text>
      <TableScroll minWidth={560}>
        <Table verticalSpacing="sm" aria-label="Bounce and complaint rates">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Window</Table.Th>
              <Table.Th scope="col">Sent</Table.Th>
              <Table.Th scope="col">Bounces</Table.Th>
              <Table.Th scope="col">Bounce rate</Table.Th>
              <Table.Th scope="col">Complaints</Table.Th>
              <Table.Th scope="col">Complaint rate</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {windows.map(({ key, label }) => {
              const window = state[key]
              const high = over(window)
              return (
                <Table.Tr key={key}>
                  <Table.Th scope="row">{label}</Table.Th>
                  <Table.Td>{window.total.toLocaleString()}</Table.Td>
                  <Table.Td>{window.bounces.toLocaleString()}</Table.Td>
                  <Table.Td>
                    <Rate value={window.bounceRate} high={high.bounce} />
                  </Table.Td>
                  <Table.Td>{window.complaints.toLocaleString()}</Table.Td>
                  <Table.Td>
                    <Rate value={window.complaintRate} high={high.complaint} />
                  </Table.Td>
                </Table.Tr>
              )
            })}
          </Table.Tbody>
        </Table>
      </TableScroll>
    </Paper>
  )
}

function Rate({ value, high }: { value: number; high: boolean }) {
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="sm">{percent(value)}</Text>
      {high && (
        <Badge color="red.9" size="sm">
          over threshold
        </Badge>
      )}
    </Group>
  )
}

function Suspensions({ state }: { state: Security }) {
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="security-pauses">
      <Title order={2} size="h4" mb="sm" id="security-pauses">
        Recent pauses
      </Title>
      {state.suspensions.length === 0 ? (
        <EmptyState title="Never paused">Sending of this project has never been paused.</EmptyState>
      ) : (
        <TableScroll minWidth={640}>
          <Table verticalSpacing="sm" aria-label="Recent pauses">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Paused</Table.Th>
                <Table.Th scope="col">What</Table.Th>
                <Table.Th scope="col">Reason</Table.Th>
                <Table.Th scope="col">Rates then</Table.Th>
                <Table.Th scope="col">Resumed</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {state.suspensions.map((pause) => (
                <Table.Tr key={pause.id}>
                  <Table.Td>{new Date(pause.pausedAt).toLocaleString()}</Table.Td>
                  <Table.Td>{pause.scope === 'MARKETING' ? 'Marketing' : 'All sending'}</Table.Td>
                  <Table.Td>{pause.message}</Table.Td>
                  <Table.Td>
                    {percent(pause.bounceRate)} bounces, {percent(pause.complaintRate)} complaints of{' '}
                    {pause.sent.toLocaleString()}
                  </Table.Td>
                  <Table.Td>{pause.liftedAt ? new Date(pause.liftedAt).toLocaleString() : 'Still paused'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
    </Paper>
  )
}
