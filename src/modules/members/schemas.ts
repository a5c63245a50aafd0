import { z } from 'zod'
import { memberRoles } from '../../http/roles.js'

export const memberRole = z.enum(memberRoles)

export const membersParams = z.object({ id: z.uuid() })
export const memberParams = z.object({ id: z.uuid(), userId: z.uuid() })
export const invitationParams = z.object({ id: z.uuid(), invitationId: z.uuid() })

export const memberInvite = z.object({
  email: z.email().max(254),
  role: memberRole.default('MEMBER'),
})
export type MemberInvite = z.infer<typeof memberInvite>

export const memberUpdate = z.object({ role: memberRole })

const memberView = z.object({
  userId: z.uuid(),
  email: z.string(),
  role: memberRole,
  createdAt: z.date(),
})
export type MemberView = z.infer<typeof memberView>

/** An existing user is added at once (`ACTIVE`); anyone else is mailed an invitation (`INVITED`, no userId yet). */
const inviteResult = z.object({
  userId: z.uuid().nullable(),
  email: z.string(),
  role: memberRole,
  status: z.enum(['ACTIVE', 'INVITED']),
})
export type InviteResult = z.infer<typeof inviteResult>

const invitationToken = z.string().min(1).max(512)

export const acceptInvitationBody = z.object({ token: invitationToken })
export const invitationQuery = z.object({ token: invitationToken })

/** What the invitation page shows before the invitee signs up or logs in. */
const invitationView = z.object({
  projectId: z.uuid(),
  projectName: z.string(),
  email: z.string(),
  role: memberRole,
  invitedBy: z.string().nullable(),
  expiresAt: z.date(),
})
export type InvitationView = z.infer<typeof invitationView>

/**
 * An invitation not accepted yet, as the project's admins see it: whom, with which role, who sent it (their address;
 * null for a secret key or a deleted account) and when. `EXPIRED` ones stay listed so they can be sent again.
 */
const pendingInvitationView = z.object({
  id: z.uuid(),
  email: z.string(),
  role: memberRole,
  invitedBy: z.string().nullable(),
  createdAt: z.date(),
  expiresAt: z.date(),
  status: z.enum(['PENDING', 'EXPIRED']),
})
export type PendingInvitationView = z.infer<typeof pendingInvitationView>

const envelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data })
export const memberListResponse = envelope(z.array(memberView))
export const memberResponse = envelope(memberView.omit({ createdAt: true }))
export const inviteResponse = envelope(inviteResult)
export const invitationResponse = envelope(invitationView)
export const removedResponse = envelope(z.object({ message: z.string() }))
export const pendingInvitationListResponse = envelope(z.array(pendingInvitationView))
export const pendingInvitationResponse = envelope(pendingInvitationView)
export const revokedResponse = envelope(z.object({ message: z.string() }))
