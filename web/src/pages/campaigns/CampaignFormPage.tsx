import { Anchor, Button, Grid, Group, Select, Stack, Textarea, TextInput } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { campaignQueries, createCampaign, updateCampaign } from '../../api/campaigns'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import type { Campaign } from '../../api/types'
import { emptyTree, isConditionError, treeOf } from '../../components/conditions'
import { LoadForEdit } from '../../components/LoadForEdit'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert, PageHeader } from '../../components/states'
import { type Audience, AudiencePicker, audienceInput } from './AudiencePicker'
import { CampaignPreview } from './CampaignPreview'
import { TemplatePicker } from './TemplatePicker'

type Content = { name: string; subject: string; from: string; fromName: string; replyTo: string; body: string }
type Draft = Content & { type: Campaign['type']; audience: Audience }

const blank: Draft = {
  name: '',
  subject: '',
  from: '',
  fromName: '',
  replyTo: '',
  // Marketing mail needs a visible unsubscribe link: without one the pre-send check refuses to send it.
  body: '<h1>Hello {{name ?? "there"}}</h1>\n<p>News from us.</p>\n<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>',
  type: 'MARKETING',
  audience: { audienceType: 'ALL', segmentId: null, audienceCondition: emptyTree() },
}

function draftOf(campaign: Campaign): Draft {
  return {
    name: campaign.name,
    subject: campaign.subject,
    from: campaign.from,
    fromName: campaign.fromName ?? '',
    replyTo: campaign.replyTo ?? '',
    body: campaign.body,
    type: campaign.type,
    audience: {
      audienceType: campaign.audienceType,
      segmentId: campaign.segmentId,
      audienceCondition: treeOf(campaign.audienceCondition),
    },
  }
}

/** `/campaigns/new` and `/campaigns/:id/edit` (a DRAFT or SCHEDULED campaign). */
export function CampaignFormPage() {
  const { id } = useParams()
  const { project } = useProject()
  return (
    <>
      <Anchor component={Link} to={id ? `/campaigns/${id}` : '/campaigns'} size="sm">
        ← {id ? 'Back to the campaign' : 'All campaigns'}
      </Anchor>
      <LoadForEdit
        id={id}
        query={(campaignId) => campaignQueries.detail(project.id, campaignId)}
        label="Loading the campaign"
      >
        {(loaded) =>
          loaded ? (
            <CampaignForm key={loaded.id} initial={draftOf(loaded)} id={loaded.id} />
          ) : (
            <CampaignForm initial={blank} />
          )
        }
      </LoadForEdit>
    </>
  )
}

function CampaignForm({ initial, id }: { initial: Draft; id?: string }) {
  const { project } = useProject()
  const [draft, setDraft] = useState(initial)
  const navigate = useNavigate()
  const queryClient = useQueryClient()

  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: draft.name,
        subject: draft.subject,
        from: draft.from,
        fromName: draft.fromName || null,
        replyTo: draft.replyTo || null,
        body: draft.body,
        type: draft.type,
        ...audienceInput(draft.audience),
      }
      return id ? updateCampaign(project.id, id, body) : createCampaign(project.id, body)
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: campaignQueries.all(project.id) })
      notifySuccess(`Campaign “${saved.name}” saved`)
      navigate(`/campaigns/${saved.id}`)
    },
  })
  const update = (patch: Partial<Draft>) => {
    setDraft((current) => ({ ...current, ...patch }))
    if (save.isError) save.reset()
  }
  const error = save.error instanceof ApiError ? save.error : undefined
  const text = (field: keyof Content) => ({
    value: draft[field],
    onChange: (event: { currentTarget: { value: string } }) => update({ [field]: event.currentTarget.value }),
    error: error?.forField(field),
  })

  return (
    <form
      onSubmit={(event: FormEvent) => {
        event.preventDefault()
        save.mutate()
      }}
      noValidate
    >
      <Stack mt="sm">
        <PageHeader title={id ? `Edit ${initial.name}` : 'New campaign'}>
          <Button type="submit" loading={save.isPending}>
            {id ? 'Save changes' : 'Save draft'}
          </Button>
        </PageHeader>
        {save.isError && (!error || (error.general && !isConditionError(error, 'audienceCondition'))) && (
          <ErrorAlert error={save.error} title="Not saved" />
        )}
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <Stack gap="sm">
              <TextInput label="Name" required {...text('name')} />
              <TemplatePicker onPick={(content) => update(content)} />
              <TextInput label="Subject" required {...text('subject')} />
              <Group grow align="flex-start">
                <TextInput
                  label="From address"
                  type="email"
                  required
                  placeholder="news@example.com"
                  {...text('from')}
                />
                <TextInput label="From name" {...text('fromName')} />
              </Group>
              <Group grow align="flex-start">
                <TextInput label="Reply-to address" type="email" {...text('replyTo')} />
                <Select
                  label="Kind"
                  value={draft.type}
                  allowDeselect={false}
                  onChange={(type) => type && update({ type: type as Campaign['type'] })}
                  data={[
                    { value: 'MARKETING', label: 'Marketing' },
                    { value: 'TRANSACTIONAL', label: 'Transactional' },
                  ]}
                  error={error?.forField('type')}
                />
              </Group>
              <Textarea
                label="HTML body"
                required
                autosize
                minRows={10}
                maxRows={24}
                {...text('body')}
                styles={{ input: { fontFamily: 'ui-monospace, monospace', fontSize: 13 } }}
                spellCheck={false}
              />
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <CampaignPreview
              subject={draft.subject}
              body={draft.body}
              audience={draft.audience}
              type={draft.type}
              boilerplate={id ? undefined : blank.body}
            />
          </Grid.Col>
        </Grid>
        <AudiencePicker
          value={draft.audience}
          onChange={(audience) => update({ audience })}
          type={draft.type}
          saveError={error}
        />
      </Stack>
    </form>
  )
}
