import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from 'react-router'
import { projectScope } from '../../api/keys'
import { deleteProject, projectsQuery, resetProject } from '../../api/projects'
import { rememberProjectId } from '../../api/session'
import type { Project } from '../../api/types'
import { notifySuccess } from '../../components/notify'
import { ConfirmByName } from './ConfirmByName'
import { isOwner } from './roles'

/** Reset and delete: owners only, each behind the typed project name. */
export function DangerZone({ project }: { project: Project }) {
  const [resetting, resetDialog] = useDisclosure(false)
  const [deleting, deleteDialog] = useDisclosure(false)
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const reset = useMutation({
    mutationFn: (confirm: string) => resetProject(project.id, confirm),
    onSuccess: async () => {
      resetDialog.close()
      await queryClient.invalidateQueries({ queryKey: projectScope(project.id) })
      notifySuccess(`${project.name} has no contacts, emails or events any more.`, 'Project reset')
    },
  })
  const remove = useMutation({
    mutationFn: (confirm: string) => deleteProject(project.id, confirm),
    onSuccess: async () => {
      rememberProjectId(undefined)
      // Out of the list at once, so the frame never renders the deleted project while the list reloads.
      queryClient.setQueryData(projectsQuery.queryKey, (projects) => projects?.filter((p) => p.id !== project.id))
      await queryClient.invalidateQueries({ queryKey: projectsQuery.queryKey })
      notifySuccess(`${project.name} was deleted.`, 'Project deleted')
      navigate('/', { replace: true })
    },
  })
  const owner = isOwner(project)
  return (
    <Paper
      withBorder
      p="lg"
      component="section"
      aria-labelledby="danger-zone"
      style={{ borderColor: 'var(--mantine-color-red-4)' }}
    >
      <Title order={2} size="h4" mb="xs" id="danger-zone">
        Danger zone
      </Title>
      {!owner && (
        <Text size="sm" c="dimmed" mb="sm">
          Only an owner of the project can reset or delete it.
        </Text>
      )}
      <Stack gap="md">
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm">
            <strong>Reset the project</strong>: removes contacts, events, emails, templates, campaigns, segments,
            workflows, imports and suppressions. Members, domains and keys stay.
          </Text>
          <Button color="red.9" variant="outline" disabled={!owner} onClick={resetDialog.open}>
            Reset project…
          </Button>
        </Group>
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm">
            <strong>Delete the project</strong>: removes it and everything it holds, for every member.
          </Text>
          <Button color="red.9" disabled={!owner} onClick={deleteDialog.open}>
            Delete project…
          </Button>
        </Group>
      </Stack>
      <ConfirmByName
        opened={resetting}
        onClose={resetDialog.close}
        title={`Reset ${project.name}?`}
        warning="Every contact, event, email, template, campaign, segment and workflow of this project is removed, and its queued work stops. This cannot be undone."
        action="Reset project"
        projectName={project.name}
        mutation={reset}
      />
      <ConfirmByName
        opened={deleting}
        onClose={deleteDialog.close}
        title={`Delete ${project.name}?`}
        warning="The project, its keys, domains, members and all of its data are removed. Its keys stop working at once. This cannot be undone."
        action="Delete project"
        projectName={project.name}
        mutation={remove}
      />
    </Paper>
  )
}
