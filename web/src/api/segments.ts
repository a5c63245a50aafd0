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
export const listSegments = () => api<Segment[]>('/segments')
export const getSegment = (id: string) => api<Segment>(`/segments/${id}`)
export const createSegment = (body: SegmentInput) => api<Segment>('/segments', { method: 'POST', body })
export const updateSegment = (id: string, body: SegmentUpdate) =>
  api<Segment>(`/segments/${id}`, { method: 'PATCH', body })
export const deleteSegment = (id: string) => api<void>(`/segments/${id}`, { method: 'DELETE' })
export const listSegmentContacts = (id: string, page: number, pageSize = 25) =>
  api<SegmentContactsPage>(`/segments/${id}/contacts${query({ page, pageSize })}`)
export const previewSegment = (
  body: { condition: unknown; segmentId?: string; limit?: number },
  signal?: AbortSignal,
) => api<SegmentPreview>('/segments/preview', { method: 'POST', body, signal })
export const addSegmentMembers = (id: string, emails: string[], createMissing: boolean) =>
  api<MembersAdded>(`/segments/${id}/members`, { method: 'POST', body: { emails, createMissing } })
export const removeSegmentMembers = (id: string, emails: string[]) =>
  api<MembersRemoved>(`/segments/${id}/members`, { method: 'DELETE', body: { emails } })
