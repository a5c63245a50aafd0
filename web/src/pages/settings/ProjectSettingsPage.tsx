import { Button, Paper, Radio, Stack, Text, TextInput, Title } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { projectsQuery, updateProject } from '../../api/projects'
import type { Project, ProjectUpdate } from '../../api/types'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert } from '../../components/states'
import { DangerZone } from './DangerZone'
import { canAdminister } from './roles'

type Tracking = Project['tracking']

const trackingChoices: { value: Tracking; label: string; description: string }[] = [
  { value: 'ENABLED', label: 'All emails', description: 'Opens and clicks are tracked in every email.' },
  {
    value: 'MARKETING_ONLY',
    label: 'Marketing only',
    description: 'Campaigns, workflows and marketing templates are tracked; transactional mail is not.',
  },
  { value: 'DISABLED', label: 'Off', description: 'No open pixel and no rewritten links.' },
]

export function ProjectSettingsPage() {
  const { project } = useProject()
  return (
    <Stack gap="lg" maw={760}>
      <ProjectForm project={project} />
      <DangerZone project={project} />
    </Stack>
  )
}

function ProjectForm({ project }: { project: Project }) {
  const [name, setName] = useState(project.name)
  const [tracking, setTracking] = useState<Tracking>(project.tracking)
  const queryClient = useQueryClient()
  const editable = canAdminister(project)
  const save = useMutation({
    mutationFn: (body: ProjectUpdate) => updateProject(project.id, body),
    onSuccess: (updated) => {
      queryClient.setQueryData(projectsQuery.queryKey, (projects) =>
        projects?.map((p) => (p.id === updated.id ? updated : p)),
      )
      notifySuccess('Project settings saved.')
    },
  })
  const error = save.error instanceof ApiError ? save.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate({ name, tracking })
  }
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="project-settings">
      <Title order={2} size="h4" mb="sm" id="project-settings">
        Project
      </Title>
      {!editable && (
        <Text size="sm" c="dimmed" mb="sm">
          Only admins and owners can change these settings.
        </Text>
      )}
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {save.isError && (!error || error.general) && <ErrorAlert error={save.error} title="Not saved" />}
          <TextInput
            label="Project name"
            required
            maxLength={100}
            value={name}
            disabled={!editable}
            onChange={(event) => setName(event.currentTarget.value)}
            error={error?.forField('name')}
          />
          <Radio.Group
            label="Open and click tracking"
            value={tracking}
            onChange={(value) => setTracking(value as Tracking)}
            error={error?.forField('tracking')}
          >
            <Stack gap="xs" mt="xs">
              {trackingChoices.map((choice) => (
                <Radio
                  key={choice.value}
                  value={choice.value}
                  label={choice.label}
                  description={choice.description}
                  disabled={!editable}
                />
              ))}
            </Stack>
          </Radio.Group>
          <Text size="sm" c="dimmed">
            Opens are counted only in emails whose HTML is longer than{' '}
            {project.trackingPixelMinHtmlLength.toLocaleString('en')} characters: spam filters (SpamAssassin's
            HTML_IMAGE_ONLY rules) score any image in a shorter email, the open pixel included, as an image-only email,
            so shorter emails go without it. Clicks are tracked in every tracked email, through short links that do not
            show where they lead.
          </Text>
          {editable && (
            <Button type="submit" loading={save.isPending} style={{ alignSelf: 'flex-start' }}>
              Save settings
            </Button>
          )}
        </Stack>
      </form>
    </Paper>
  )
}
