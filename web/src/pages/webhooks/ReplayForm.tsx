import { Button, Group, Paper, Text, TextInput, Title } from '@mantine/core'
import type { maxReplayDays } from '@server/modules/webhooks/schemas.js'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import dayjs from 'dayjs'
import { type FormEvent, useState } from 'react'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { replayWebhookMessages, webhookQueries } from '../../api/webhooks'
import { ErrorAlert } from '../../components/states'

/** The API's bound on one replay; typed from it, so a change there fails the dashboard's typecheck. */
const replayDays: typeof maxReplayDays = 7
const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone

/** A `datetime-local` value: the browser's local time to the minute. */
const localInput = (date: dayjs.Dayjs) => date.format('YYYY-MM-DDTHH:mm')

/** A `datetime-local` value as the API's ISO time, or what was typed when it is no time at all. */
const isoOf = (value: string) => (dayjs(value).isValid() ? dayjs(value).toISOString() : value)

/**
 * Sends again every message of the endpoint made in a time range (after an outage of the receiver, say), each with a
 * new round of retries. The API bounds the range to `replayDays` and names the field when it refuses one.
 */
export function ReplayForm({ endpointId }: { endpointId: string }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  // The next whole minute: a range ends before its `to`, and a message of this minute belongs in it.
  const [from, setFrom] = useState(() => localInput(dayjs().startOf('minute').subtract(1, 'day')))
  const [to, setTo] = useState(() => localInput(dayjs().startOf('minute').add(1, 'minute')))
  const replay = useMutation({
    mutationFn: () => replayWebhookMessages(project.id, endpointId, { from: isoOf(from), to: isoOf(to) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookQueries.all(project.id) }),
  })
  const error = replay.error instanceof ApiError ? replay.error : undefined
  const submit = (event: FormEvent) => {
    event.preventDefault()
    replay.mutate()
  }
  const change = (set: (value: string) => void) => (value: string) => {
    set(value)
    replay.reset()
  }

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="replay-title">
      <Title order={2} size="h4" id="replay-title" mb="xs">
        Replay
      </Title>
      <Text size="sm" mb="sm">
        Sends again every message of this endpoint made from the first time up to the second, each under its own
        webhook-id as before (a receiver can tell a repeat) with a new round of retries: for a receiver that lost
        events. At most {replayDays} days at once; times in your time zone ({timeZone}).
      </Text>
      <form onSubmit={submit} noValidate aria-label="Replay messages">
        <Group align="flex-start">
          <TextInput
            label="From"
            type="datetime-local"
            required
            value={from}
            onChange={(event) => change(setFrom)(event.currentTarget.value)}
            error={error?.forField('from')}
            w={240}
          />
          <TextInput
            label="To"
            type="datetime-local"
            required
            value={to}
            onChange={(event) => change(setTo)(event.currentTarget.value)}
            error={error?.forField('to')}
            w={240}
          />
          <Button type="submit" variant="default" mt={25} loading={replay.isPending}>
            Replay messages
          </Button>
        </Group>
      </form>
      {replay.isError && (!error || error.general) && <ErrorAlert error={replay.error} title="Not replayed" />}
      {replay.data && (
        <Text size="sm" mt="sm" role="status" data-testid="replay-result">
          {replay.data.replayed === 0
            ? 'No messages in that range (those being delivered right now are left to their attempt).'
            : `${replay.data.replayed.toLocaleString()} ${replay.data.replayed === 1 ? 'message goes' : 'messages go'} out again.`}
        </Text>
      )}
    </Paper>
  )
}
