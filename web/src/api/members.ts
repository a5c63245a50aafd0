import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import { projectScope } from './keys'
import type { InviteResult, Member, MemberInvite, MemberRole, PendingInvitation } from './types'

/** The team routes name the project in their path (`/projects/:id/...`), so they send no X-Project-Id. */
const path = (projectId: string) => `/projects/${projectId}`

export const memberQueries = {
  list: (projectId: string) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'members'],
      queryFn: async () => (await api<{ data: Member[] }>(`${path(projectId)}/members`)).data,
    }),
  invitations: (projectId: string) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'invitations'],
      queryFn: async () => (await api<{ data: PendingInvitation[] }>(`${path(projectId)}/invitations`)).data,
    }),
}

/** Adds an existing account at once, or mails an invitation to a new address. */
export const inviteMember = async (projectId: string, body: MemberInvite) =>
  (await api<{ data: InviteResult }>(`${path(projectId)}/members`, { method: 'POST', body })).data
export const changeMemberRole = (projectId: string, userId: string, role: MemberRole) =>
  api<void>(`${path(projectId)}/members/${userId}`, { method: 'PATCH', body: { role } })
export const removeMember = (projectId: string, userId: string) =>
  api<void>(`${path(projectId)}/members/${userId}`, { method: 'DELETE' })
export const resendInvitation = async (projectId: string, invitationId: string) =>
  (
    await api<{ data: PendingInvitation }>(`${path(projectId)}/invitations/${invitationId}/resend`, {
      method: 'POST',
      body: {},
    })
  ).data
export const revokeInvitation = (projectId: string, invitationId: string) =>
  api<void>(`${path(projectId)}/invitations/${invitationId}`, { method: 'DELETE' })
