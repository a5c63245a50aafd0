import { Anchor, Badge, Button, Group, Paper, Stack, Switch, Text } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams } from 'react-router'
import { useProject } from '../../api/project-context'
import { deleteSegment, segmentQueries, updateSegment } from '../../api/segments'
import type { Segment } from '../../api/types'
import { ConfirmAction } from '../../components/ConfirmAction'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert, PageHeader, QueryState } from '../../components/states'
import { SegmentMembers } from './SegmentMembers'
import { StaticMembersForm } from './StaticMembersForm'

export function SegmentPage() {
  const { id = '' } = useParams()
  const { project } = useProject()
  const segment = useQuery(segmentQueries.detail(project.id, id))
  return (
    <>
      <Anchor component={Link} to="/segments" size="sm">
        ← All segments
      </Anchor>
      <QueryState query={segment} label="Loading the segment">
        {(loaded) => <SegmentView segment={loaded} />}
      </QueryState>
    </>
  )
}

function SegmentView({ segment }: { segment: Segment }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const refresh = () => queryClient.invalidateQueries({ queryKey: segmentQueries.all(project.id) })
  const tracking = useMutation({
    mutationFn: (trackMembership: boolean) => updateSegment(project.id, segment.id, { trackMembership }),
    onSuccess: async (saved) => {
      await refresh()
      notifySuccess(`Entry and exit tracking is ${saved.trackMembership ? 'on' : 'off'}`)
    },
  })
  return (
    <Stack mt="sm">
      <PageHeader title={segment.name}>
        {segment.type === 'DYNAMIC' && (
          <Button component={Link} to={`/segments/${segment.id}/edit`} variant="default">
            Edit
          </Button>
        )}
        <ConfirmAction
          label="Delete"
          title={`Delete “${segment.name}”?`}
          confirmLabel="Delete segment"
          action={() => deleteSegment(project.id, segment.id)}
          onDone={async () => {
            notifySuccess(`Segment “${segment.name}” deleted`)
            navigate('/segments')
            await refresh()
          }}
        >
          The segment and its member list are deleted. Contacts stay. A segment a draft, scheduled or sending campaign
          uses cannot be deleted.
        </ConfirmAction>
      </PageHeader>
      <Paper withBorder p="md">
        <Group gap="xl" align="flex-start">
          <div>
            <Text size="xs" c="dimmed">
              Type
            </Text>
            <Badge color="gray.7">{segment.type}</Badge>
          </div>
          <div>
            <Text size="xs" c="dimmed">
              {segment.type === 'DYNAMIC' ? 'Members when last counted' : 'Members'}
            </Text>
            <Text fw={600}>{segment.memberCount.toLocaleString()}</Text>
          </div>
          {segment.description && (
            <div>
              <Text size="xs" c="dimmed">
                Description
              </Text>
              <Text size="sm">{segment.description}</Text>
            </div>
          )}
          <Switch
            label="Track entries and exits"
            description="segment.entry and segment.exit events"
            checked={segment.trackMembership}
            disabled={tracking.isPending}
            onChange={(event) => tracking.mutate(event.currentTarget.checked)}
          />
        </Group>
        {tracking.isError && <ErrorAlert error={tracking.error} title="Tracking not changed" />}
      </Paper>
      {segment.type === 'STATIC' && <StaticMembersForm segmentId={segment.id} />}
      <SegmentMembers segment={segment} />
    </Stack>
  )
}
