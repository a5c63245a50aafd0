import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { invitations, users } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { ProjectActor } from '../../http/project.js'
import { wakeSystemMail } from '../system-mail/service.js'
import { invitationLifetimeMs, mailInvitation } from './invitations.js'
import type { PendingInvitationView } from './schemas.js'

const pendingColumns = {
  id: invitations.id,
  email: invitations.email,
  role: invitations.role,
  invitedBy: users.email,
  createdAt: invitations.createdAt,
  expiresAt: invitations.expiresAt,
  status: sql<
    PendingInvitationView['status']
  >`CASE WHEN ${invitations.expiresAt} > now() THEN 'PENDING' ELSE 'EXPIRED' END`,
}

const pendingOf = (projectId: string) => and(eq(invitations.projectId, projectId), isNull(invitations.acceptedAt))

/** The project's invitations not accepted yet, oldest first, as the members list. */
export async function listInvitations(db: Executor, projectId: string): Promise<PendingInvitationView[]> {
  return db
    .select(pendingColumns)
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(pendingOf(projectId))
    .orderBy(asc(invitations.createdAt), asc(invitations.id))
}

/**
 * One pending invitation of the project, locked, for an actor allowed to act on it: another project's, an accepted
 * or an unknown one is 404 alike. Handing out (or withdrawing) the owner role takes an owner, as inviting one does.
 */
async function lockInvitation(
  tx: Executor,
  projectId: string,
  actor: ProjectActor,
  invitationId: string,
  what: string,
) {
  const [invitation] = await tx
    .select({ id: invitations.id, email: invitations.email, role: invitations.role, invitedBy: invitations.invitedBy })
    .from(invitations)
    .where(and(pendingOf(projectId), eq(invitations.id, invitationId)))
    .for('update')
  if (!invitation) throw notFound('Invitation')
  if (invitation.role === 'OWNER' && actor.role !== 'OWNER') {
    throw new AppError('FORBIDDEN', `Only a project owner can ${what} an invitation to become an owner`)
  }
  return invitation
}

async function findInvitationView(tx: Executor, projectId: string, invitationId: string) {
  const [view] = await tx
    .select(pendingColumns)
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(and(pendingOf(projectId), eq(invitations.id, invitationId)))
  if (!view) throw new Error('invitation vanished inside its transaction')
  return view
}

/**
 * Mails the invitation again with a new link valid for seven more days (an expired one too); the links mailed
 * before stop working. The invitation keeps its id, role, inviter and creation date.
 */
export async function resendInvitation(
  ctx: AppContext,
  projectId: string,
  actor: ProjectActor,
  invitationId: string,
): Promise<PendingInvitationView> {
  const view = await ctx.db.transaction(async (tx) => {
    const invitation = await lockInvitation(tx, projectId, actor, invitationId, 'resend')
    const expiresAt = new Date(Date.now() + invitationLifetimeMs)
    await tx.update(invitations).set({ expiresAt }).where(eq(invitations.id, invitation.id))
    await mailInvitation(ctx, tx, { ...invitation, projectId, expiresAt })
    return findInvitationView(tx, projectId, invitation.id)
  })
  wakeSystemMail(ctx)
  return view
}

/** Withdraws an invitation: its link stops working at once. */
export async function revokeInvitation(
  db: AppContext['db'],
  projectId: string,
  actor: ProjectActor,
  invitationId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const invitation = await lockInvitation(tx, projectId, actor, invitationId, 'revoke')
    await tx.delete(invitations).where(eq(invitations.id, invitation.id))
  })
}
