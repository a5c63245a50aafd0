import { queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import type { Credentials, Invitation, Message, User } from './types'

/** Account routes: the session cookie (or its absence) is all they need; none names a project. */
export type CredentialsEndpoint = '/auth/login' | '/auth/signup'

/** Logs in or signs up (an invitation token in the body joins its project in the same request). */
export const submitCredentials = (endpoint: CredentialsEndpoint, body: Credentials) =>
  api<User>(endpoint, { method: 'POST', body })
export const logOut = () => api<void>('/auth/logout', { method: 'POST' })

export const requestPasswordReset = (email: string) =>
  api<Message>('/auth/request-password-reset', { method: 'POST', body: { email } })
export const resetPassword = (token: string, newPassword: string) =>
  api<Message>('/auth/reset-password', { method: 'POST', body: { token, newPassword } })
export const requestVerification = () => api<Message>('/auth/request-verification', { method: 'POST' })

/**
 * Verifies a mailed token: a query rather than a mutation, so it runs once per token even when React mounts the
 * page twice. `onVerified` runs before the answer is handed out (the page drops what it cached before).
 */
export const emailVerificationQuery = (token: string, onVerified: () => Promise<void>) =>
  queryOptions({
    queryKey: ['verify-email', token],
    queryFn: async () => {
      const result = await api<Message>('/auth/verify-email', { method: 'POST', body: { token } })
      await onVerified()
      return result
    },
  })

/** What a mailed invitation offers: the project, the role and who sent it. */
export const invitationQuery = (token: string) =>
  queryOptions({
    queryKey: ['invitation', token],
    queryFn: async () => (await api<{ data: Invitation }>(`/auth/invitation${query({ token })}`)).data,
  })
export const acceptInvitation = async (token: string) =>
  (await api<{ data: { projectId: string } }>('/auth/accept-invitation', { method: 'POST', body: { token } })).data
