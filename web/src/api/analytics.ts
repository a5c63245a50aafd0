import { queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import { projectScope } from './keys'
import type { EventStats, Timeseries, TopCampaigns, TopEvents } from './types'

const all = (projectId: string) => [...projectScope(projectId), 'analytics'] as const

/** `from` is fixed by the caller per range chosen, so the keys (and the numbers) stay put until it changes. */
export const analyticsQueries = {
  all,
  timeseries: (projectId: string, from: string, granularity: 'hour' | 'day') =>
    queryOptions({
      queryKey: [...all(projectId), 'timeseries', from, granularity],
      queryFn: () => api<Timeseries>(`/analytics/timeseries${query({ from, granularity })}`, { projectId }),
    }),
  topEvents: (projectId: string, from: string) =>
    queryOptions({
      queryKey: [...all(projectId), 'top-events', from],
      queryFn: () => api<TopEvents>(`/analytics/top-events${query({ from, limit: 10 })}`, { projectId }),
    }),
  /** Campaigns of all time: the API's top list has no period. */
  topCampaigns: (projectId: string, metric: string) =>
    queryOptions({
      queryKey: [...all(projectId), 'top-campaigns', metric],
      queryFn: () => api<TopCampaigns>(`/analytics/top-campaigns${query({ metric, limit: 10 })}`, { projectId }),
    }),
  eventStats: (projectId: string) =>
    queryOptions({
      queryKey: [...all(projectId), 'event-stats'],
      queryFn: () => api<EventStats>('/events/stats', { projectId }),
    }),
}
