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

const percent = (value: number) => `${value.toLocaleString(undefined, { maximumFractionDigits: 2 })}%`

export function SecurityPage() {
  const { project } = useProject()
  const security = useQuery(securityQuery(project.id))
  return (
    <QueryState query={security} label="Loading sending health">
      {(state) => (
        <Stack gap="lg" maw={900}>
          <SendingState project={project} state={state} />
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
  if (state.sending === 'ACTIVE')
    return (
      <Alert color={state.isHealthy ? 'teal.9' : 'red.9'} variant="outline" title="Sending is active" role="status">
        {state.isHealthy
          ? 'Bounce and complaint rates are below the thresholds.'
          : 'A 7-day rate is at or over its threshold: sending pauses if it stays there.'}
      </Alert>
    )
  return (
    <Alert color="red.9" variant="outline" title="Sending is paused" role="status">
      <Text size="sm" mb="xs">
        {state.pausedReason} Emails accepted meanwhile are held and go out when sending resumes.
      </Text>
      {resume.isError && <ErrorAlert error={resume.error} title="Not resumed" />}
      {isOwner(project) ? (
        <Button color="red.9" size="xs" loading={resume.isPending} onClick={() => resume.mutate()}>
          Resume sending
        </Button>
      ) : (
        <Text size="sm">Only an owner of the project can resume sending.</Text>
      )}
    </Alert>
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
        {thresholds.enabled
          ? `Sending pauses when the 7-day bounce rate reaches ${percent(thresholds.bounceRate)} or the complaint rate ${percent(thresholds.complaintRate)}, once at least ${thresholds.minimumSent.toLocaleString()} emails were sent.`
          : 'The automatic pause is turned off on this server.'}
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
        <TableScroll minWidth={560}>
          <Table verticalSpacing="sm" aria-label="Recent pauses">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Paused</Table.Th>
                <Table.Th scope="col">Reason</Table.Th>
                <Table.Th scope="col">Rates then</Table.Th>
                <Table.Th scope="col">Resumed</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {state.suspensions.map((pause) => (
                <Table.Tr key={pause.id}>
                  <Table.Td>{new Date(pause.pausedAt).toLocaleString()}</Table.Td>
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
