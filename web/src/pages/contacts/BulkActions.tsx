import { Button, Group, Paper, Select, Text } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { contactJobQueries, contactQueries, startBulkAction } from '../../api/contacts'
import { useProject } from '../../api/project-context'
import { addSegmentMembers, segmentQueries } from '../../api/segments'
import type { BulkJob } from '../../api/types'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert } from '../../components/states'
import { jobDone, useJob } from './use-job'

type Action = BulkJob['action']
const done: Record<Action, string> = { subscribe: 'Subscribed', unsubscribe: 'Unsubscribed', delete: 'Deleted' }

/** Actions on the selected contacts: the API's queued bulk jobs, and adding them to a static segment. */
export function BulkActions({ selected, onDone }: { selected: Map<string, string>; onDone(): void }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const [jobId, setJobId] = useState<string>()
  const [confirmingDelete, setConfirmingDelete] = useState(false)
  const [segmentId, setSegmentId] = useState<string | null>(null)
  const count = selected.size

  const start = useMutation({
    mutationFn: (action: Action) => startBulkAction(project.id, action, [...selected.keys()]),
    onSuccess: (accepted) => setJobId(accepted.jobId),
  })
  const job = useJob(contactJobQueries.bulk(project.id, jobId ?? ''), jobId !== undefined)
  const finished = jobDone(job.data) ? job.data : undefined
  useEffect(() => {
    if (!finished) return
    setJobId(undefined)
    setConfirmingDelete(false)
    if (finished.state === 'completed') {
      notifySuccess(`${done[finished.action]} ${finished.affected} of ${finished.total} contacts`)
      onDone()
    }
    void queryClient.invalidateQueries({ queryKey: contactQueries.all(project.id) })
  }, [finished, onDone, queryClient, project.id])

  const segments = useQuery(segmentQueries.list(project.id))
  const staticSegments = (segments.data ?? []).filter((segment) => segment.type === 'STATIC')
  const addToSegment = useMutation({
    mutationFn: (id: string) => addSegmentMembers(project.id, id, [...selected.values()]),
    onSuccess: (result) => {
      const name = staticSegments.find((segment) => segment.id === segmentId)?.name ?? 'the segment'
      notifySuccess(`Added ${result.added} contacts to ${name}`)
      void queryClient.invalidateQueries({ queryKey: segmentQueries.all(project.id) })
      onDone()
    },
  })
  const busy = start.isPending || jobId !== undefined
  const failed = finished?.state === 'failed' ? new Error(finished.error ?? 'The bulk action failed') : undefined

  return (
    <Paper
      withBorder
      p="xs"
      mb="sm"
      component="section"
      aria-label="Bulk actions"
      bg="var(--mantine-color-default-hover)"
    >
      <Group gap="sm">
        <Text size="sm" fw={600} aria-live="polite">
          {count} selected
        </Text>
        <Button size="xs" variant="default" disabled={busy} onClick={() => start.mutate('subscribe')}>
          Subscribe
        </Button>
        <Button size="xs" variant="default" disabled={busy} onClick={() => start.mutate('unsubscribe')}>
          Unsubscribe
        </Button>
        <Group gap={4}>
          <Select
            aria-label="Static segment"
            placeholder={staticSegments.length ? 'Static segment' : 'No static segments'}
            size="xs"
            data={staticSegments.map((segment) => ({ value: segment.id, label: segment.name }))}
            value={segmentId}
            onChange={setSegmentId}
            disabled={staticSegments.length === 0}
            w={180}
          />
          <Button
            size="xs"
            variant="default"
            disabled={!segmentId || busy}
            loading={addToSegment.isPending}
            onClick={() => segmentId && addToSegment.mutate(segmentId)}
          >
            Add to segment
          </Button>
        </Group>
        <Button size="xs" color="red.9" variant="outline" disabled={busy} onClick={() => setConfirmingDelete(true)}>
          Delete…
        </Button>
        {busy && (
          <Text size="sm" c="dimmed" role="status">
            Working… {job.data ? `${job.data.progress}%` : ''}
          </Text>
        )}
      </Group>
      {(start.error || failed || addToSegment.error || job.error) && (
        <ErrorAlert error={start.error ?? failed ?? addToSegment.error ?? job.error} title="Not done" />
      )}
      <ConfirmDialog
        opened={confirmingDelete}
        title={`Delete ${count} ${count === 1 ? 'contact' : 'contacts'}?`}
        confirmLabel={`Delete ${count} ${count === 1 ? 'contact' : 'contacts'}`}
        onConfirm={() => start.mutate('delete')}
        onClose={() => setConfirmingDelete(false)}
        pending={busy}
        error={start.error}
      >
        Their data, events and history are deleted with them. This cannot be undone.
      </ConfirmDialog>
    </Paper>
  )
}
