import { Group, Paper, Progress, Text, Title } from '@mantine/core'
import type { Campaign } from '../../api/types'

/** How far a SENDING campaign has got, from the counters the page polls. */
export function SendingProgress({ campaign }: { campaign: Campaign }) {
  const progress = campaign.progress
  const total = campaign.totalRecipients
  const done = progress ? progress.sent + progress.failed : campaign.sentCount
  const percent = total > 0 ? Math.min(100, (done / total) * 100) : 0
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="sending-title">
      <Title order={2} size="h4" id="sending-title" mb="xs">
        Sending
      </Title>
      <Progress value={percent} size="lg" animated aria-label="Sending progress" />
      <Group justify="space-between" mt={6}>
        <Text size="sm" aria-live="polite">
          {done.toLocaleString()} of {total.toLocaleString()} handled
          {progress && progress.failed > 0 ? ` (${progress.failed.toLocaleString()} failed)` : ''}
        </Text>
        {progress && (
          <Text size="sm" c="dimmed">
            {progress.queued === null
              ? 'Adding recipients to the queue…'
              : `${progress.queued.toLocaleString()} queued, ${progress.remaining.toLocaleString()} to go`}
          </Text>
        )}
      </Group>
    </Paper>
  )
}
