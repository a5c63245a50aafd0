import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import type { Project, ProjectConfirmation, ProjectCreate, ProjectUpdate } from './types'

/**
 * The user's projects, keys included. Account routes (`/users/@me/projects/:id`): the path names the project, so
 * these send no X-Project-Id. A change answers with the project, which callers write into this list.
 */
export const projectsQuery = queryOptions({
  queryKey: ['projects'],
  queryFn: () => api<Project[]>('/users/@me/projects'),
})

const path = (projectId: string) => `/users/@me/projects/${projectId}`

export const createProject = (body: ProjectCreate) => api<Project>('/users/@me/projects', { method: 'POST', body })
export const updateProject = (projectId: string, body: ProjectUpdate) =>
  api<Project>(path(projectId), { method: 'PATCH', body })
/** New public and secret keys; the old ones stop working at once. */
export const regenerateProjectKeys = (projectId: string) =>
  api<Project>(`${path(projectId)}/regenerate-keys`, { method: 'POST' })
/** Empties the project (contacts, emails, events); `confirm` is its name, typed. */
export const resetProject = (projectId: string, confirm: string) =>
  api<void>(`${path(projectId)}/reset`, { method: 'POST', body: { confirm } satisfies ProjectConfirmation })
export const deleteProject = (projectId: string, confirm: string) =>
  api<void>(path(projectId), { method: 'DELETE', body: { confirm } satisfies ProjectConfirmation })
