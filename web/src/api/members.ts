import { api } from './client'
import type { Member, PendingInvitation } from './types'

/** The team routes name the project in their path (`/projects/:id/...`). */
export const membersKey = (projectId: string) => ['project', projectId, 'members']
export const invitationsKey = (projectId: string) => ['project', projectId, 'invitations']

export const listMembers = async (projectId: string) =>
  (await api<{ data: Member[] }>(`/projects/${projectId}/members`)).data
export const listInvitations = async (projectId: string) =>
  (await api<{ data: PendingInvitation[] }>(`/projects/${projectId}/invitations`)).data
export const resendInvitation = async (projectId: string, invitationId: string) =>
  (
    await api<{ data: PendingInvitation }>(`/projects/${projectId}/invitations/${invitationId}/resend`, {
      method: 'POST',
      body: {},
    })
  ).data
export const revokeInvitation = (projectId: string, invitationId: string) =>
  api(`/projects/${projectId}/invitations/${invitationId}`, { method: 'DELETE' })
