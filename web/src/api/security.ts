import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import { projectScope } from './keys'
import type { Security } from './types'

/** Sending health: bounce and complaint rates, and whether the reputation guard paused sending. */
export const securityQuery = (projectId: string) =>
  queryOptions({
    queryKey: [...projectScope(projectId), 'security'],
    queryFn: () => api<Security>(`/users/@me/projects/${projectId}/security`),
  })

/** Lets held emails go; answers with the new state. */
export const resumeSending = (projectId: string) =>
  api<Security>(`/users/@me/projects/${projectId}/security/resume`, { method: 'POST' })
