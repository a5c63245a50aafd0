import { api } from './client'
import type {
  AudienceCount,
  AudienceCountInput,
  Campaign,
  CampaignCreated,
  CampaignInput,
  CampaignStats,
  CampaignTimeseries,
  CampaignUpdate,
} from './types'

export const campaignsKey = (projectId: string) => ['project', projectId, 'campaigns']

type Envelope = CampaignCreated
const data = async (answer: Promise<Envelope>): Promise<Campaign> => (await answer).data

export const getCampaign = (id: string) => data(api<Envelope>(`/campaigns/${id}`))
export const createCampaign = (body: CampaignInput) => data(api<Envelope>('/campaigns', { method: 'POST', body }))
export const updateCampaign = (id: string, body: CampaignUpdate) =>
  data(api<Envelope>(`/campaigns/${id}`, { method: 'PUT', body }))
export const deleteCampaign = (id: string) => api<void>(`/campaigns/${id}`, { method: 'DELETE' })
/** Sends now without a time, or schedules for `scheduledFor` (ISO). */
export const sendCampaign = (id: string, scheduledFor?: string) =>
  api<Envelope>(`/campaigns/${id}/send`, { method: 'POST', body: scheduledFor ? { scheduledFor } : {} })
export const cancelCampaign = (id: string) =>
  data(api<Envelope>(`/campaigns/${id}/cancel`, { method: 'POST', body: {} }))
export const testCampaign = (id: string, email: string) =>
  api<{ success: true; message: string }>(`/campaigns/${id}/test`, { method: 'POST', body: { email } })
export const getCampaignStats = (id: string) => api<CampaignStats>(`/campaigns/${id}/stats`)
export const getCampaignTimeseries = (id: string, granularity: 'hour' | 'day') =>
  api<CampaignTimeseries>(`/campaigns/${id}/timeseries?granularity=${granularity}`)
export const countAudience = (body: AudienceCountInput, signal?: AbortSignal) =>
  api<AudienceCount>('/campaigns/audience/count', { method: 'POST', body, signal })
