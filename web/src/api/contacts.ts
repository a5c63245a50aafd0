import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import type { ContactFields } from './types'

/** Every contact query of a project starts with this key, so a change to contacts refreshes their fields too. */
export const contactsKey = (projectId: string) => ['project', projectId, 'contacts']

export const contactFieldsQuery = (projectId: string) =>
  queryOptions({
    queryKey: [...contactsKey(projectId), 'fields'],
    queryFn: () => api<ContactFields>('/contacts/fields', { projectId }),
  })
