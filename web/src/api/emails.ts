import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import { projectScope } from './keys'
import type { EmailListQuery, EmailPage, EmailTimeline } from './types'

/** Every email query of a project starts with this key: the list, a contact's emails and each email's story. */
const all = (projectId: string) => [...projectScope(projectId), 'emails'] as const

/** The list's filters; `cursor` is the pages' own. */
export type EmailFilters = Omit<EmailListQuery, 'cursor'>

const listEmails = (projectId: string, params: EmailListQuery) =>
  api<EmailPage>(`/emails${query(params)}`, { projectId })

export const emailQueries = {
  all,
  /** One email with its whole history (`GET /emails/:id`). */
  detail: (projectId: string, id: string) =>
    queryOptions({
      queryKey: [...all(projectId), 'detail', id],
      queryFn: () => api<EmailTimeline>(`/emails/${id}`, { projectId }),
    }),
  /** One page of emails (a contact's newest, say). */
  page: (projectId: string, params: EmailListQuery) =>
    queryOptions({
      queryKey: [...all(projectId), 'page', params],
      queryFn: () => listEmails(projectId, params),
    }),
  /** The Emails page's list: pages appended one after another ("Load more"), each opened by the last one's cursor. */
  list: (projectId: string, filters: EmailFilters) =>
    infiniteQueryOptions({
      queryKey: [...all(projectId), 'list', filters],
      queryFn: ({ pageParam }) => listEmails(projectId, { ...filters, cursor: pageParam }),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (last) => (last.hasMore ? last.cursor : undefined),
    }),
}
