import { queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import { projectScope } from './keys'
import type {
  MembersAdded,
  MembersRemoved,
  Segment,
  SegmentContactsPage,
  SegmentInput,
  SegmentPreview,
  SegmentUpdate,
} from './types'

/** Every segment query of a project starts with this key, so one invalidation refreshes lists, records and members. */
const all = (projectId: string) => [...projectScope(projectId), 'segments'] as const

export const listSegmentContacts = (projectId: string, id: string, page: number, pageSize = 25) =>
  api<SegmentContactsPage>(`/segments/${id}/contacts${query({ page, pageSize })}`, { projectId })
export const previewSegment = (
  projectId: string,
  body: { condition: unknown; segmentId?: string; limit?: number },
  signal?: AbortSignal,
) => api<SegmentPreview>('/segments/preview', { method: 'POST', body, signal, projectId })

export const segmentQueries = {
  all,
  list: (projectId: string) =>
    queryOptions({ queryKey: [...all(projectId), 'list'], queryFn: () => api<Segment[]>('/segments', { projectId }) }),
  detail: (projectId: string, id: string) =>
    queryOptions({ queryKey: [...all(projectId), id], queryFn: () => api<Segment>(`/segments/${id}`, { projectId }) }),
  members: (projectId: string, id: string, page: number) =>
    queryOptions({
      queryKey: [...all(projectId), id, 'contacts', page],
      queryFn: () => listSegmentContacts(projectId, id, page),
    }),
  /**
   * Who a condition being edited selects. Outside `all`: saving a segment must not count a draft again; the
   * request is aborted when typing moves the key on.
   */
  preview: (projectId: string, condition: unknown, segmentId?: string) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'segment-preview', segmentId, condition],
      queryFn: ({ signal }) => previewSegment(projectId, { condition, segmentId, limit: 10 }, signal),
    }),
}

export const createSegment = (projectId: string, body: SegmentInput) =>
  api<Segment>('/segments', { method: 'POST', body, projectId })
export const updateSegment = (projectId: string, id: string, body: SegmentUpdate) =>
  api<Segment>(`/segments/${id}`, { method: 'PATCH', body, projectId })
export const deleteSegment = (projectId: string, id: string) =>
  api<void>(`/segments/${id}`, { method: 'DELETE', projectId })
/** Adds to a static segment; `createMissing` makes contacts of addresses the project does not have yet. */
export const addSegmentMembers = (projectId: string, id: string, emails: string[], createMissing?: boolean) =>
  api<MembersAdded>(`/segments/${id}/members`, { method: 'POST', body: { emails, createMissing }, projectId })
export const removeSegmentMembers = (projectId: string, id: string, emails: string[]) =>
  api<MembersRemoved>(`/segments/${id}/members`, { method: 'DELETE', body: { emails }, projectId })
