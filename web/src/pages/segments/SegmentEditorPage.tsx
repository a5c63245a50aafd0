import {
  Anchor,
  Button,
  Grid,
  SegmentedControl,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  useMatches,
} from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { createSegment, segmentQueries, updateSegment } from '../../api/segments'
import type { Segment } from '../../api/types'
import {
  ConditionBuilder,
  type ConditionTree,
  conditionErrors,
  emptyTree,
  isConditionError,
  treeOf,
} from '../../components/conditions'
import { LoadForEdit } from '../../components/LoadForEdit'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert, PageHeader } from '../../components/states'
import { SegmentPreview, useSegmentPreview } from './SegmentPreview'

type Draft = {
  name: string
  description: string
  type: Segment['type']
  trackMembership: boolean
  condition: ConditionTree
}

const blank: Draft = { name: '', description: '', type: 'DYNAMIC', trackMembership: false, condition: emptyTree() }

function draftOf(segment: Segment): Draft {
  return {
    name: segment.name,
    description: segment.description ?? '',
    type: segment.type,
    trackMembership: segment.trackMembership,
    condition: treeOf(segment.condition),
  }
}

/** `/segments/new` and `/segments/:id/edit`. */
export function SegmentEditorPage() {
  const { id } = useParams()
  const { project } = useProject()
  return (
    <>
      <Anchor component={Link} to={id ? `/segments/${id}` : '/segments'} size="sm">
        ← {id ? 'Back to the segment' : 'All segments'}
      </Anchor>
      <LoadForEdit
        id={id}
        query={(segmentId) => segmentQueries.detail(project.id, segmentId)}
        label="Loading the segment"
      >
        {(loaded) =>
          loaded ? <Editor key={loaded.id} initial={draftOf(loaded)} id={loaded.id} /> : <Editor initial={blank} />
        }
      </LoadForEdit>
    </>
  )
}

function Editor({ initial, id }: { initial: Draft; id?: string }) {
  const { project } = useProject()
  const [draft, setDraft] = useState(initial)
  // The two long type labels do not fit side by side on a phone.
  const typeOrientation = useMatches<'vertical' | 'horizontal'>({ base: 'vertical', xs: 'horizontal' })
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const dynamic = draft.type === 'DYNAMIC'
  const preview = useSegmentPreview(dynamic ? draft.condition : undefined, id)

  const save = useMutation({
    mutationFn: () => {
      const common = {
        name: draft.name,
        description: draft.description || null,
        trackMembership: draft.trackMembership,
      }
      const condition = dynamic ? { condition: draft.condition } : {}
      return id
        ? updateSegment(project.id, id, { ...common, ...condition })
        : createSegment(project.id, { ...common, type: draft.type, ...condition })
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: segmentQueries.all(project.id) })
      notifySuccess(`Segment “${saved.name}” saved`)
      navigate(`/segments/${saved.id}`)
    },
  })
  // An edit makes the last save's errors stale; the preview then names what is wrong with the new condition.
  const update = (patch: Partial<Draft>) => {
    setDraft((current) => ({ ...current, ...patch }))
    if (save.isError) save.reset()
  }
  const error = save.error instanceof ApiError ? save.error : undefined
  // The preview's 422 names the bad filter while editing; the save's, once saved.
  const treeErrors = save.isError
    ? conditionErrors(save.error, 'condition')
    : conditionErrors(preview.error, 'condition')
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate()
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack mt="sm">
        <PageHeader title={id ? `Edit ${initial.name}` : 'New segment'}>
          <Button type="submit" loading={save.isPending}>
            {id ? 'Save changes' : 'Create segment'}
          </Button>
        </PageHeader>
        {save.isError && (!error || (error.general && !isConditionError(error, 'condition'))) && (
          <ErrorAlert error={save.error} title="Not saved" />
        )}
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, md: 7 }}>
            <Stack gap="sm">
              <TextInput
                label="Name"
                required
                value={draft.name}
                onChange={(event) => update({ name: event.currentTarget.value })}
                error={error?.forField('name')}
                maw={480}
              />
              <Textarea
                label="Description"
                autosize
                minRows={2}
                value={draft.description}
                onChange={(event) => update({ description: event.currentTarget.value })}
                error={error?.forField('description')}
                maw={480}
              />
              {!id && (
                <div>
                  <Text size="sm" fw={500} mb={4} id="segment-type">
                    Type
                  </Text>
                  <SegmentedControl
                    aria-labelledby="segment-type"
                    orientation={typeOrientation}
                    value={draft.type}
                    onChange={(type) => update({ type: type as Segment['type'] })}
                    data={[
                      { value: 'DYNAMIC', label: 'Dynamic: by a condition' },
                      { value: 'STATIC', label: 'Static: chosen by hand' },
                    ]}
                  />
                </div>
              )}
              <Switch
                label="Track entries and exits"
                description="Records segment.entry and segment.exit events as contacts join and leave (workflows can start on them)."
                checked={draft.trackMembership}
                onChange={(event) => update({ trackMembership: event.currentTarget.checked })}
              />
              {!dynamic && (
                <Text size="sm" c="dimmed">
                  Add members by email address on the segment’s page once it is created.
                </Text>
              )}
            </Stack>
          </Grid.Col>
          {dynamic && (
            <Grid.Col span={{ base: 12, md: 5 }}>
              <SegmentPreview preview={preview} />
            </Grid.Col>
          )}
        </Grid>
        {/* Full width, so a filter's choices fit on one line at a laptop's width. */}
        {dynamic && (
          <ConditionBuilder
            label="Segment condition"
            value={draft.condition}
            onChange={(condition) => update({ condition })}
            errors={treeErrors}
          />
        )}
      </Stack>
    </form>
  )
}
