import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { actorOf, projectOf } from '../../http/project.js'
import { listInvitations, resendInvitation, revokeInvitation } from './pending-invitations.js'
import {
  invitationParams,
  inviteResponse,
  memberInvite,
  memberListResponse,
  memberParams,
  memberResponse,
  membersParams,
  memberUpdate,
  pendingInvitationListResponse,
  pendingInvitationResponse,
  removedResponse,
  revokedResponse,
} from './schemas.js'
import { changeMemberRole, inviteMember, listMembers, removeMember } from './service.js'

/** The project's team. Roles: README, "Accounts, teams and roles"; target rules (owners, last owner) in the service. */
export function registerMemberRoutes(app: App, ctx: AppContext): void {
  const tags = ['members']
  const access = (role: 'MEMBER' | 'ADMIN') => ({ auth: 'project' as const, role, projectParam: 'id' })

  app.get(
    '/projects/:id/members',
    { config: access('MEMBER'), schema: { tags, params: membersParams, response: { 200: memberListResponse } } },
    async (request) => ({ success: true as const, data: await listMembers(ctx.db, projectOf(request)) }),
  )

  app.post(
    '/projects/:id/members',
    {
      config: access('ADMIN'),
      schema: { tags, params: membersParams, body: memberInvite, response: { 200: inviteResponse } },
    },
    async (request) => ({
      success: true as const,
      data: await inviteMember(ctx, projectOf(request), actorOf(request), request.body),
    }),
  )

  app.patch(
    '/projects/:id/members/:userId',
    {
      config: access('ADMIN'),
      schema: { tags, params: memberParams, body: memberUpdate, response: { 200: memberResponse } },
    },
    async (request) => ({
      success: true as const,
      data: await changeMemberRole(
        ctx.db,
        projectOf(request),
        actorOf(request),
        request.params.userId,
        request.body.role,
      ),
    }),
  )

  // MEMBER: anyone may leave; removing someone else needs an admin, checked in the service.
  app.delete(
    '/projects/:id/members/:userId',
    { config: access('MEMBER'), schema: { tags, params: memberParams, response: { 200: removedResponse } } },
    async (request) => {
      const actor = { ...actorOf(request), sessionId: request.sessionId }
      await removeMember(ctx.db, projectOf(request), actor, request.params.userId)
      return { success: true as const, data: { message: 'Member removed successfully' } }
    },
  )

  // Invitations not accepted yet: the admins who may invite see, resend and revoke them (an owner's, owners only).
  app.get(
    '/projects/:id/invitations',
    {
      config: access('ADMIN'),
      schema: { tags, params: membersParams, response: { 200: pendingInvitationListResponse } },
    },
    async (request) => ({ success: true as const, data: await listInvitations(ctx.db, projectOf(request)) }),
  )

  app.post(
    '/projects/:id/invitations/:invitationId/resend',
    {
      config: access('ADMIN'),
      schema: { tags, params: invitationParams, response: { 200: pendingInvitationResponse } },
    },
    async (request) => ({
      success: true as const,
      data: await resendInvitation(ctx, projectOf(request), actorOf(request), request.params.invitationId),
    }),
  )

  app.delete(
    '/projects/:id/invitations/:invitationId',
    { config: access('ADMIN'), schema: { tags, params: invitationParams, response: { 200: revokedResponse } } },
    async (request) => {
      await revokeInvitation(ctx.db, projectOf(request), actorOf(request), request.params.invitationId)
      return { success: true as const, data: { message: 'Invitation revoked' } }
    },
  )
}
