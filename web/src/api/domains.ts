import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import type { Domain } from './types'

export const domainsKey = (projectId: string) => ['project', projectId, 'domains']

export const domainsQuery = (projectId: string) =>
  queryOptions({
    queryKey: domainsKey(projectId),
    // The path names the project too, and the route checks that it is the one of X-Project-Id.
    queryFn: () => api<Domain[]>(`/domains/project/${projectId}`, { projectId }),
  })
