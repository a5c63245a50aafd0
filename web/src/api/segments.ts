import { queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import type {
  MembersAdded,
  MembersRemoved,
  Segment,
  SegmentContactsPage,
  SegmentInput,
  SegmentPreview,
  SegmentUpdate,
} from './types'

export const segmentsKey = (projectId: string) => ['project', projectId, 'segments']
export const listSegments = (projectId: string) => api<Segment[]>('/segments', { projectId })
export const segmentsQuery = (projectId: string) =>
  queryOptions({ queryKey: segmentsKey(projectId), queryFn: () => listSegments(projectId) })
export const getSegment = (projectId: string, id: string) => api<Segment>(`/segments/${id}`, { projectId })
export const createSegment = (projectId: string, body: SegmentInput) =>
  api<Segment>('/segments', { method: 'POST', body, projectId })
export const updateSegment = (projectId: string, id: string, body: SegmentUpdate) =>
  api<Segment>(`/segments/${id}`, { method: 'PATCH', body, projectId })
export const deleteSegment = (projectId: string, id: string) =>
  api<void>(`/segments/${id}`, { method: 'DELETE', projectId })
export const listSegmentContacts = (projectId: string, id: string, page: number, pageSize = 25) =>
  api<SegmentContactsPage>(`/segments/${id}/contacts${query({ page, pageSize })}`, { projectId })
export const previewSegment = (
  projectId: string,
  body: { condition: unknown; segmentId?: string; limit?: number },
  signal?: AbortSignal,
) => api<SegmentPreview>('/segments/preview', { method: 'POST', body, signal, projectId })
export const addSegmentMembers = (projectId: string, id: string, emails: string[], createMissing: boolean) =>
  api<MembersAdded>(`/segments/${id}/members`, { method: 'POST', body: { emails, createMissing }, projectId })
export const removeSegmentMembers = (projectId: string, id: string, emails: string[]) =>
  api<MembersRemoved>(`/segments/${id}/members`, { method: 'DELETE', body: { emails }, projectId })
