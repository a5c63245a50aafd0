import '@mantine/dates/styles.css'
import { Button, Checkbox, Divider, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core'
import { DateTimePicker } from '@mantine/dates'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import dayjs from 'dayjs'
import { useState } from 'react'
import { campaignQueries, cancelCampaign, sendCampaign, testCampaign } from '../../api/campaigns'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { meQuery } from '../../api/session'
import type { Campaign, CampaignCheck } from '../../api/types'
import { ConfirmAction } from '../../components/ConfirmAction'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert } from '../../components/states'
import { isOwner } from '../settings/roles'

const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone

/**
 * Test send, send now, schedule (or reschedule) and cancel, as the campaign's status allows. While the pre-send
 * check finds errors, sending and scheduling wait for a fix, or for an owner to tick the override.
 */
export function SendPanel({ campaign, check }: { campaign: Campaign; check: CampaignCheck | undefined }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const refresh = () => queryClient.invalidateQueries({ queryKey: campaignQueries.all(project.id) })
  const sendable = campaign.status === 'DRAFT' || campaign.status === 'SCHEDULED'
  const cancellable = campaign.status === 'SCHEDULED' || campaign.status === 'SENDING'
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="send-title">
      <Title order={2} size="h4" id="send-title" mb="sm">
        Send
      </Title>
      <Stack gap="md">
        {sendable && <TestSend campaignId={campaign.id} />}
        {sendable && <Divider />}
        {sendable && <SendOrSchedule campaign={campaign} check={check} onDone={refresh} />}
        {cancellable && (
          <Group>
            <ConfirmAction
              label={campaign.status === 'SCHEDULED' ? 'Cancel schedule' : 'Cancel sending'}
              title="Cancel this campaign?"
              confirmLabel="Cancel campaign"
              action={() => cancelCampaign(project.id, campaign.id)}
              onDone={async () => {
                notifySuccess('Campaign cancelled')
                await refresh()
              }}
            >
              Emails not yet handed to the mail server are not sent. A campaign nothing was sent for goes back to draft.
            </ConfirmAction>
          </Group>
        )}
      </Stack>
    </Paper>
  )
}

function TestSend({ campaignId }: { campaignId: string }) {
  const { project } = useProject()
  const me = useQuery(meQuery)
  const [email, setEmail] = useState<string>()
  const address = email ?? me.data?.email ?? ''
  const test = useMutation({ mutationFn: () => testCampaign(project.id, campaignId, address) })
  const error = test.error instanceof ApiError ? test.error : undefined
  return (
    <Group align="flex-end" gap="sm">
      <TextInput
        label="Send a test to"
        description="Your own address, or another project member’s."
        type="email"
        value={address}
        onChange={(event) => {
          setEmail(event.currentTarget.value)
          test.reset()
        }}
        error={error?.forField('email') ?? (error && !error.forField('email') ? error.message : undefined)}
        w={320}
      />
      <Button variant="default" onClick={() => test.mutate()} loading={test.isPending} disabled={!address}>
        Send test
      </Button>
      {test.isSuccess && (
        <Text size="sm" c="teal" role="status">
          {test.data.message}
        </Text>
      )}
      {test.isError && !error && <ErrorAlert error={test.error} title="Test not sent" />}
    </Group>
  )
}

function SendOrSchedule({
  campaign,
  check,
  onDone,
}: {
  campaign: Campaign
  check: CampaignCheck | undefined
  onDone(): Promise<unknown>
}) {
  const { project } = useProject()
  const [when, setWhen] = useState<string | null>(
    campaign.scheduledFor ? dayjs(campaign.scheduledFor).format('YYYY-MM-DD HH:mm:ss') : null,
  )
  const [override, setOverride] = useState(false)
  const blocked = check?.blocked === true
  const force = blocked && override
  const held = blocked && !override
  const schedule = useMutation({
    mutationFn: () => sendCampaign(project.id, campaign.id, dayjs(when).toISOString(), force),
    onSuccess: async (answer) => {
      notifySuccess(answer.message ?? 'Campaign scheduled')
      await onDone()
    },
  })
  return (
    <Stack gap="sm">
      <Group align="flex-end" gap="sm">
        <DateTimePicker
          label="Send at"
          description={`Your time zone: ${timeZone}`}
          placeholder="Pick a date and time"
          valueFormat="YYYY-MM-DD HH:mm"
          value={when}
          onChange={(value) => {
            setWhen(value)
            schedule.reset()
          }}
          minDate={dayjs().format('YYYY-MM-DD')}
          clearable
          clearButtonProps={{ 'aria-label': 'Clear the send time' }}
          w={280}
          submitButtonProps={{ 'aria-label': 'Confirm date and time' }}
          nextLabel="Next month"
          previousLabel="Previous month"
          timePickerProps={{ hoursInputLabel: 'Hours', minutesInputLabel: 'Minutes' }}
        />
        {/* Not the light variant: its hover shade leaves the label under 4.5:1, and the pointer rests on it after a click. */}
        <Button
          variant="default"
          onClick={() => schedule.mutate()}
          disabled={!when || held}
          loading={schedule.isPending}
        >
          {campaign.status === 'SCHEDULED' ? 'Reschedule' : 'Schedule'}
        </Button>
        <Text size="sm" c="dimmed">
          or
        </Text>
        <ConfirmAction
          label="Send now"
          title={`Send “${campaign.name}” now?`}
          confirmLabel="Send now"
          color="blue.9"
          buttonProps={{ variant: 'filled', disabled: held }}
          action={() => sendCampaign(project.id, campaign.id, undefined, force)}
          onDone={async () => {
            notifySuccess('Campaign is being sent')
            await onDone()
          }}
        >
          It goes to {campaign.totalRecipients.toLocaleString()} recipients as counted when saved (counted again as it
          starts). This cannot be undone, though sending can be cancelled part way.
        </ConfirmAction>
      </Group>
      {blocked && isOwner(project) && (
        <Checkbox
          label={`Send anyway, despite the ${check.errors === 1 ? 'error' : `${check.errors} errors`} of the pre-send check`}
          description="As an owner you may override the check; the override is recorded on the campaign."
          checked={override}
          onChange={(event) => setOverride(event.currentTarget.checked)}
        />
      )}
      {blocked && !isOwner(project) && (
        <Text size="sm" data-testid="presend-blocked">
          Fix the errors of the pre-send check to send or schedule it; only a project owner may send it anyway.
        </Text>
      )}
      {schedule.isError && <ErrorAlert error={schedule.error} title="Not scheduled" />}
    </Stack>
  )
}
