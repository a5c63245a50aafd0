import { queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import { projectScope } from './keys'
import type { ActivityListQuery, ActivityPage, ActivityTypes } from './types'

export const listActivity = (projectId: string, params: ActivityListQuery) =>
  api<ActivityPage>(`/activity${query(params)}`, { projectId })

/** A contact's own feed is keyed under that contact (contacts.ts), so its changes refresh it. */
export const activityQueries = {
  types: (projectId: string) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'activity-types'],
      queryFn: () => api<ActivityTypes>('/activity/types', { projectId }),
    }),
  feed: (projectId: string, params: ActivityListQuery) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'activity', params],
      queryFn: () => listActivity(projectId, params),
    }),
}
