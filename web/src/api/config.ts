import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import type { AppConfig } from './types'

/** The deployment's features; fixed while the server runs. */
export const configQuery = queryOptions({
  queryKey: ['config'],
  queryFn: () => api<AppConfig>('/config'),
  staleTime: Number.POSITIVE_INFINITY,
})
