import { queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import { projectScope } from './keys'
import type {
  Webhook,
  WebhookChange,
  WebhookCreated,
  WebhookInput,
  WebhookMessage,
  WebhookMessageDetail,
  WebhookMessageListQuery,
  WebhookMessagePage,
  WebhookReplay,
  WebhookReplayed,
  WebhookSaved,
  WebhookSecretRotated,
} from './types'

/** Every webhook query of a project: the endpoints, each one's delivery log and its messages' attempts. */
const all = (projectId: string) => [...projectScope(projectId), 'webhooks'] as const

export const webhookQueries = {
  all,
  list: (projectId: string) =>
    queryOptions({
      queryKey: [...all(projectId), 'list'],
      queryFn: () => api<Webhook[]>('/webhooks', { projectId }),
    }),
  detail: (projectId: string, id: string) =>
    queryOptions({
      queryKey: [...all(projectId), 'detail', id],
      queryFn: () => api<Webhook>(`/webhooks/${id}`, { projectId }),
    }),
  /** One page of an endpoint's delivery log, newest first. */
  messages: (projectId: string, id: string, params: WebhookMessageListQuery) =>
    queryOptions({
      queryKey: [...all(projectId), 'messages', id, params],
      queryFn: () => api<WebhookMessagePage>(`/webhooks/${id}/messages${query(params)}`, { projectId }),
    }),
  /** One message with its body and every attempt. */
  message: (projectId: string, id: string, messageId: string) =>
    queryOptions({
      queryKey: [...all(projectId), 'message', id, messageId],
      queryFn: () => api<WebhookMessageDetail>(`/webhooks/${id}/messages/${messageId}`, { projectId }),
    }),
}

/** The answer carries the signing secret, the only time besides a rotation. */
export const createWebhook = (projectId: string, body: WebhookInput) =>
  api<WebhookCreated>('/webhooks', { method: 'POST', body, projectId })
export const updateWebhook = (projectId: string, id: string, body: WebhookChange) =>
  api<WebhookSaved>(`/webhooks/${id}`, { method: 'PATCH', body, projectId })
export const deleteWebhook = (projectId: string, id: string) =>
  api<void>(`/webhooks/${id}`, { method: 'DELETE', projectId })
export const rotateWebhookSecret = (projectId: string, id: string) =>
  api<WebhookSecretRotated>(`/webhooks/${id}/rotate-secret`, { method: 'POST', projectId })
export const retryWebhookMessage = (projectId: string, id: string, messageId: string) =>
  api<WebhookMessage>(`/webhooks/${id}/messages/${messageId}/retry`, { method: 'POST', projectId })
export const replayWebhookMessages = (projectId: string, id: string, body: WebhookReplay) =>
  api<WebhookReplayed>(`/webhooks/${id}/replay`, { method: 'POST', body, projectId })
export const sendWebhookTest = (projectId: string, id: string) =>
  api<WebhookMessage>(`/webhooks/${id}/test`, { method: 'POST', projectId })
