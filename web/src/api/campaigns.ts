import { queryOptions } from '@tanstack/react-query'
import { api, query, request } from './client'
import { listContacts } from './contacts'
import { projectScope } from './keys'
import { listSegmentContacts, previewSegment } from './segments'
import type {
  AudienceCount,
  AudienceCountInput,
  Campaign,
  CampaignCheck,
  CampaignCreated,
  CampaignInput,
  CampaignPage,
  CampaignStats,
  CampaignTimeseries,
  CampaignUpdate,
  RecipientPage,
  RecipientState,
} from './types'

/** Every campaign query of a project starts with this key, so one invalidation refreshes lists, records and stats. */
const all = (projectId: string) => [...projectScope(projectId), 'campaigns'] as const

type Envelope = CampaignCreated
const data = async (answer: Promise<Envelope>): Promise<Campaign> => (await answer).data
type Audience = Pick<AudienceCountInput, 'audienceType' | 'segmentId' | 'audienceCondition'>

/** The first contact of an audience by address, or null when it has no one (or its condition is not complete). */
async function firstRecipient(projectId: string, audience: Audience, type: Campaign['type'], signal: AbortSignal) {
  if (audience.audienceType === 'SEGMENT') {
    if (!audience.segmentId) return null
    return (await listSegmentContacts(projectId, audience.segmentId, 1, 1)).data[0] ?? null
  }
  if (audience.audienceType === 'FILTERED') {
    const preview = await previewSegment(projectId, { condition: audience.audienceCondition, limit: 1 }, signal)
    return preview.contacts[0] ?? null
  }
  // Marketing email goes to subscribed contacts only.
  const subscribed = type === 'MARKETING' ? 'true' : undefined
  const page = await listContacts(projectId, { limit: 1, sort: 'email', dir: 'asc', subscribed }, signal)
  return page.data[0] ?? null
}

export const campaignQueries = {
  all,
  list: (projectId: string, params: { page: number; search?: string; status?: string }) =>
    queryOptions({
      queryKey: [...all(projectId), 'list', params],
      queryFn: () => api<CampaignPage>(`/campaigns${query({ ...params, pageSize: 20 })}`, { projectId }),
    }),
  detail: (projectId: string, id: string) =>
    queryOptions({
      queryKey: [...all(projectId), id],
      queryFn: () => data(api<Envelope>(`/campaigns/${id}`, { projectId })),
    }),
  /** Keyed by the campaign's counters, so each poll of a sending campaign that moved asks again. */
  stats: (projectId: string, campaign: Pick<Campaign, 'id' | 'updatedAt' | 'sentCount'>) =>
    queryOptions({
      queryKey: [...all(projectId), campaign.id, 'stats', campaign.updatedAt, campaign.sentCount],
      queryFn: () => api<CampaignStats>(`/campaigns/${campaign.id}/stats`, { projectId }),
    }),
  timeseries: (projectId: string, id: string, granularity: 'hour' | 'day', version: string) =>
    queryOptions({
      queryKey: [...all(projectId), id, 'timeseries', granularity, version],
      queryFn: () => api<CampaignTimeseries>(`/campaigns/${id}/timeseries${query({ granularity })}`, { projectId }),
    }),
  /** What the pre-send check says of the campaign as saved; keyed by its version, so an edit asks again. */
  check: (projectId: string, id: string, version: string) =>
    queryOptions({
      queryKey: [...all(projectId), id, 'check', version],
      queryFn: async () => (await api<{ data: CampaignCheck }>(`/campaigns/${id}/check`, { projectId })).data,
    }),
  /** The campaign's recipients in a state (every one without), a cursor page at a time. */
  recipients: (projectId: string, id: string, params: { state?: RecipientState; cursor?: string }) =>
    queryOptions({
      queryKey: [...all(projectId), id, 'recipients', params],
      queryFn: () => api<RecipientPage>(`/campaigns/${id}/recipients${query({ ...params, limit: 25 })}`, { projectId }),
    }),
  /** Outside `all`, as are the two below: they answer for a form's draft, not for a saved campaign. */
  audienceCount: (projectId: string, body: AudienceCountInput) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'audience-count', body],
      queryFn: ({ signal }) =>
        api<AudienceCount>('/campaigns/audience/count', { method: 'POST', body, signal, projectId }),
    }),
  audienceSample: (projectId: string, audience: Audience, type: Campaign['type']) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'audience-sample', audience, type],
      queryFn: ({ signal }) => firstRecipient(projectId, audience, type, signal),
    }),
}

export const createCampaign = (projectId: string, body: CampaignInput) =>
  data(api<Envelope>('/campaigns', { method: 'POST', body, projectId }))
export const updateCampaign = (projectId: string, id: string, body: CampaignUpdate) =>
  data(api<Envelope>(`/campaigns/${id}`, { method: 'PUT', body, projectId }))
export const deleteCampaign = (projectId: string, id: string) =>
  api<void>(`/campaigns/${id}`, { method: 'DELETE', projectId })
/** Sends now without a time, or schedules for `scheduledFor` (ISO); `force` (owners) despite pre-send errors. */
export const sendCampaign = (projectId: string, id: string, scheduledFor?: string, force = false) =>
  api<Envelope>(`/campaigns/${id}/send`, {
    method: 'POST',
    body: { ...(scheduledFor ? { scheduledFor } : {}), ...(force ? { force } : {}) },
    projectId,
  })
export const cancelCampaign = (projectId: string, id: string) =>
  data(api<Envelope>(`/campaigns/${id}/cancel`, { method: 'POST', body: {}, projectId }))
export const testCampaign = (projectId: string, id: string, email: string) =>
  api<{ success: true; message: string }>(`/campaigns/${id}/test`, { method: 'POST', body: { email }, projectId })
/**
 * The recipients as CSV, a file to save. Fetched rather than linked: project routes take the project from the
 * X-Project-Id header beside the session cookie, which a plain link cannot send.
 */
export async function downloadRecipientsCsv(projectId: string, id: string, state?: RecipientState): Promise<Blob> {
  return (await request(`/campaigns/${id}/recipients.csv${query({ state })}`, { projectId })).blob()
}
