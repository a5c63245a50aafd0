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

export const getCampaign = (projectId: string, id: string) => data(api<Envelope>(`/campaigns/${id}`, { projectId }))
export const createCampaign = (projectId: string, body: CampaignInput) =>
  data(api<Envelope>('/campaigns', { method: 'POST', body, projectId }))
export const updateCampaign = (projectId: string, id: string, body: CampaignUpdate) =>
  data(api<Envelope>(`/campaigns/${id}`, { method: 'PUT', body, projectId }))
export const deleteCampaign = (projectId: string, id: string) =>
  api<void>(`/campaigns/${id}`, { method: 'DELETE', projectId })
/** Sends now without a time, or schedules for `scheduledFor` (ISO). */
export const sendCampaign = (projectId: string, id: string, scheduledFor?: string) =>
  api<Envelope>(`/campaigns/${id}/send`, { method: 'POST', body: scheduledFor ? { scheduledFor } : {}, projectId })
export const cancelCampaign = (projectId: string, id: string) =>
  data(api<Envelope>(`/campaigns/${id}/cancel`, { method: 'POST', body: {}, projectId }))
export const testCampaign = (projectId: string, id: string, email: string) =>
  api<{ success: true; message: string }>(`/campaigns/${id}/test`, { method: 'POST', body: { email }, projectId })
export const getCampaignStats = (projectId: string, id: string) =>
  api<CampaignStats>(`/campaigns/${id}/stats`, { projectId })
export const getCampaignTimeseries = (projectId: string, id: string, granularity: 'hour' | 'day') =>
  api<CampaignTimeseries>(`/campaigns/${id}/timeseries?granularity=${granularity}`, { projectId })
export const countAudience = (projectId: string, body: AudienceCountInput, signal?: AbortSignal) =>
  api<AudienceCount>('/campaigns/audience/count', { method: 'POST', body, signal, projectId })
