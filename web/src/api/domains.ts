import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import { projectScope } from './keys'
import type { Domain } from './types'

const all = (projectId: string) => [...projectScope(projectId), 'domains'] as const

export const domainQueries = {
  all,
  list: (projectId: string) =>
    queryOptions({
      queryKey: all(projectId),
      // The path names the project too, and the route checks that it is the one of X-Project-Id.
      queryFn: () => api<Domain[]>(`/domains/project/${projectId}`, { projectId }),
    }),
}

export const addDomain = (projectId: string, domain: string) =>
  api<Domain>('/domains', { method: 'POST', body: { domain }, projectId })
/** Checks the domain's DNS records now (a GET that updates the domain) and answers with its new state. */
export const verifyDomain = (projectId: string, id: string) => api<Domain>(`/domains/${id}/verify`, { projectId })
export const deleteDomain = (projectId: string, id: string) =>
  api<void>(`/domains/${id}`, { method: 'DELETE', projectId })
/** Sets the domain's return-path (MAIL FROM) domain, or removes it with null; it is used once a check verifies it. */
export const setReturnPath = (projectId: string, id: string, domain: string | null) =>
  api<Domain>(`/domains/${id}/return-path`, { method: 'PUT', body: { domain }, projectId })
