import { queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import { projectScope } from './keys'
import type { Suppression, SuppressionInput, SuppressionPage } from './types'

const all = (projectId: string) => [...projectScope(projectId), 'suppressions'] as const

export const suppressionQueries = {
  all,
  list: (projectId: string, params: { limit: number; search?: string; reason?: string; cursor?: string }) =>
    queryOptions({
      queryKey: [...all(projectId), 'list', params],
      queryFn: () => api<SuppressionPage>(`/suppressions${query(params)}`, { projectId }),
    }),
}

export const addSuppression = (projectId: string, body: SuppressionInput) =>
  api<Suppression>('/suppressions', { method: 'POST', body, projectId })
/** The address can receive mail again. */
export const liftSuppression = (projectId: string, email: string) =>
  api<void>(`/suppressions/${encodeURIComponent(email)}`, { method: 'DELETE', projectId })
