import { Button, Paper, Stack, Text, TextInput } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { useNavigate } from 'react-router'
import { ApiError } from '../../api/client'
import { createProject, projectsQuery } from '../../api/projects'
import { rememberProjectId } from '../../api/session'
import type { ProjectCreate } from '../../api/types'
import { ErrorAlert, PageHeader } from '../../components/states'

export function NewProjectPage() {
  const [name, setName] = useState('')
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const create = useMutation({
    mutationFn: (body: ProjectCreate) => createProject(body),
    onSuccess: async (project) => {
      queryClient.setQueryData(projectsQuery.queryKey, (projects = []) => [...projects, project])
      rememberProjectId(project.id)
      await queryClient.invalidateQueries({ queryKey: projectsQuery.queryKey })
      navigate('/setup', { replace: true })
    },
  })
  const error = create.error instanceof ApiError ? create.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ name })
  }
  return (
    <>
      <PageHeader title="Create a project" />
      <Paper withBorder p="lg" maw={520}>
        <form onSubmit={onSubmit} noValidate>
          <Stack>
            <Text size="sm" c="dimmed">
              A project holds its own contacts, templates, domains and API keys.
            </Text>
            {create.isError && (!error || error.general) && <ErrorAlert error={create.error} />}
            <TextInput
              label="Project name"
              required
              maxLength={100}
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              error={error?.forField('name')}
              data-autofocus
            />
            <Button type="submit" loading={create.isPending} style={{ alignSelf: 'flex-start' }}>
              Create project
            </Button>
          </Stack>
        </form>
      </Paper>
    </>
  )
}
