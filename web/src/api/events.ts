import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import { projectScope } from './keys'
import type { EventNameList } from './types'

export const eventQueries = {
  /** The event names the project has tracked: what workflow triggers and conditions offer. */
  names: (projectId: string) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'event-names'],
      queryFn: () => api<EventNameList>('/events/names', { projectId }),
    }),
}
