import { queryOptions } from '@tanstack/react-query'
import { listActivity } from './activity'
import { api, query } from './client'
import { projectScope } from './keys'
import type {
  BulkJob,
  Contact,
  ContactFields,
  ContactImport,
  ContactListQuery,
  ContactPage,
  FieldUsage,
  JobAccepted,
} from './types'

/** Every contact query of a project starts with this key, so a change to contacts refreshes lists and fields. */
const all = (projectId: string) => [...projectScope(projectId), 'contacts'] as const
/**
 * One contact sits outside `all`: its page sets it from the API's answer after a change, and a list refresh must
 * not ask for it again. Its activity hangs below it, so the contact's own changes refresh that feed.
 */
const one = (projectId: string, id: string) => [...projectScope(projectId), 'contact', id] as const

export const listContacts = (projectId: string, params: ContactListQuery, signal?: AbortSignal) =>
  api<ContactPage>(`/contacts${query(params)}`, { projectId, signal })

export const contactQueries = {
  all,
  /** Any page of contacts: the list, the pickers (by search) and a campaign's first recipient all ask here. */
  list: (projectId: string, params: ContactListQuery) =>
    queryOptions({
      queryKey: [...all(projectId), 'list', params],
      queryFn: () => listContacts(projectId, params),
    }),
  detail: (projectId: string, id: string) =>
    queryOptions({
      queryKey: one(projectId, id),
      queryFn: () => api<Contact>(`/contacts/${id}`, { projectId }),
    }),
  activity: (projectId: string, id: string) =>
    queryOptions({
      queryKey: [...one(projectId, id), 'activity'],
      queryFn: () => listActivity(projectId, { contactId: id, limit: 20 }),
    }),
  fields: (projectId: string) =>
    queryOptions({
      queryKey: [...all(projectId), 'fields'],
      queryFn: () => api<ContactFields>('/contacts/fields', { projectId }),
    }),
  /** What refers to a custom field (segments, campaigns, workflows), before it is deleted. */
  fieldUsage: (projectId: string, field: string) =>
    queryOptions({
      queryKey: [...all(projectId), 'field-usage', field],
      queryFn: () => api<FieldUsage>(`/contacts/fields/${encodeURIComponent(field)}/usage`, { projectId }),
    }),
}

/** Queued contacts jobs (a CSV import, a bulk action), read until they complete or fail. */
const job = (projectId: string, path: string) => [...projectScope(projectId), 'job', path] as const
export const contactJobQueries = {
  import: (projectId: string, jobId: string) =>
    queryOptions({
      queryKey: job(projectId, `/contacts/import/${jobId}`),
      queryFn: () => api<ContactImport>(`/contacts/import/${jobId}`, { projectId }),
    }),
  bulk: (projectId: string, jobId: string) =>
    queryOptions({
      queryKey: job(projectId, `/contacts/bulk/${jobId}`),
      queryFn: () => api<BulkJob>(`/contacts/bulk/${jobId}`, { projectId }),
    }),
}

export const updateContactSubscription = (projectId: string, id: string, subscribed: boolean) =>
  api<Contact>(`/contacts/${id}`, { method: 'PATCH', body: { subscribed }, projectId })
export const deleteContact = (projectId: string, id: string) =>
  api<void>(`/contacts/${id}`, { method: 'DELETE', projectId })
/** Removes `data.<field>` from every contact of the project. */
export const deleteContactField = (projectId: string, field: string) =>
  api<{ field: string; contacts: number }>(`/contacts/fields/${encodeURIComponent(field)}`, {
    method: 'DELETE',
    projectId,
  })
export const importContacts = (projectId: string, csv: File) => {
  const form = new FormData()
  form.append('file', csv)
  return api<JobAccepted>('/contacts/import', { method: 'POST', body: form, projectId })
}
export const startBulkAction = (projectId: string, action: BulkJob['action'], contactIds: string[]) =>
  api<JobAccepted>(`/contacts/bulk-${action}`, { method: 'POST', body: { contactIds }, projectId })
