import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { invitations, memberships, projects, users } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import type { MemberRole } from '../../http/auth.js'
import { signLinkToken, verifyLinkToken } from '../../mail/signed-links.js'
import { invitationMessage } from '../system-mail/messages.js'
import { queueSystemEmail } from '../system-mail/service.js'
import type { InvitationView } from './schemas.js'

export const invitationLifetimeMs = 7 * 24 * 3600 * 1000

/**
 * Records an invitation of an address without an account and queues its email, in the caller's transaction.
 * A second invitation of the same address replaces the pending one, so only the newest link works.
 */
export async function queueInvitation(
  ctx: Pick<AppContext, 'config' | 'log' | 'db'>,
  tx: Executor,
  input: { projectId: string; email: string; role: MemberRole; invitedBy: string | null },
): Promise<void> {
  await tx
    .delete(invitations)
    .where(
      and(
        eq(invitations.projectId, input.projectId),
        eq(invitations.email, input.email),
        isNull(invitations.acceptedAt),
      ),
    )
  const expiresAt = new Date(Date.now() + invitationLifetimeMs)
  const [invitation] = await tx
    .insert(invitations)
    .values({ ...input, expiresAt })
    .returning({ id: invitations.id })
  if (!invitation) throw new Error('invitation insert returned nothing')
  await mailInvitation(ctx, tx, { ...input, id: invitation.id, expiresAt })
}

/**
 * Queues the email of an invitation row, its link signed with the row's id and expiry: a link is only good while
 * the row still carries that expiry, so renewing the row (a resend) voids the links mailed before.
 */
export async function mailInvitation(
  ctx: Pick<AppContext, 'config' | 'log' | 'db'>,
  tx: Executor,
  invitation: { id: string; projectId: string; email: string; invitedBy: string | null; expiresAt: Date },
): Promise<void> {
  const [project] = await tx.select({ name: projects.name }).from(projects).where(eq(projects.id, invitation.projectId))
  const [inviter] = invitation.invitedBy
    ? await tx.select({ email: users.email }).from(users).where(eq(users.id, invitation.invitedBy))
    : []
  const token = signLinkToken(ctx.config.secret, 'invitation', [invitation.id, String(invitation.expiresAt.getTime())])
  // The dashboard's page shows the project and accepts after a login or signup.
  const link = `${ctx.config.publicUrl}/app/invitation?token=${token}`
  await queueSystemEmail(
    ctx,
    tx,
    invitation.email,
    invitationMessage(link, project?.name ?? 'a project', inviter?.email ?? null),
    { kind: 'INVITATION', projectId: invitation.projectId },
  )
}

/** The row a link names, if the link is signed, unexpired and as new as the row's latest mailing. */
function linkedInvitation(ctx: Pick<AppContext, 'config'>, token: string) {
  const [invitationId, expiresAtMs] = verifyLinkToken(ctx.config.secret, 'invitation', token) ?? []
  const expiresAt = Number(expiresAtMs)
  if (!invitationId || !Number.isSafeInteger(expiresAt) || expiresAt < Date.now()) return undefined
  return and(
    eq(invitations.id, invitationId),
    eq(invitations.expiresAt, new Date(expiresAt)),
    isNull(invitations.acceptedAt),
    gt(invitations.expiresAt, sql`now()`),
  )
}

const invalidInvitation = () => new AppError('BAD_REQUEST', 'Invalid or expired invitation')

/**
 * Turns an invitation into a membership of the user it was mailed to, in the caller's transaction (signup,
 * login, or an explicit accept). The link is signed and carries its expiry; the row makes it single-use and lets
 * a newer invitation, a resend, a revocation or the project's deletion void it. An existing membership keeps its role.
 */
export async function acceptInvitation(
  ctx: Pick<AppContext, 'config'>,
  tx: Executor,
  token: string,
  user: { id: string; email: string },
): Promise<{ projectId: string }> {
  const linked = linkedInvitation(ctx, token)
  if (!linked) throw invalidInvitation()
  const [invitation] = await tx
    .update(invitations)
    .set({ acceptedAt: sql`now()` })
    .where(and(linked, eq(invitations.email, user.email)))
    .returning({ projectId: invitations.projectId, role: invitations.role })
  if (!invitation) throw invalidInvitation()
  await tx
    .insert(memberships)
    .values({ projectId: invitation.projectId, userId: user.id, role: invitation.role })
    .onConflictDoNothing()
  return { projectId: invitation.projectId }
}

/** A pending invitation as its link's holder may see it, if the link is valid. */
async function findInvitation(
  ctx: Pick<AppContext, 'config'>,
  db: Executor,
  token: string,
): Promise<InvitationView | undefined> {
  const linked = linkedInvitation(ctx, token)
  if (!linked) return undefined
  const [row] = await db
    .select({
      projectId: invitations.projectId,
      projectName: projects.name,
      email: invitations.email,
      role: invitations.role,
      invitedBy: users.email,
      expiresAt: invitations.expiresAt,
    })
    .from(invitations)
    .innerJoin(projects, eq(projects.id, invitations.projectId))
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(linked)
  return row
}

/** The address an invitation link was mailed to, if the link is valid: signup with it proves the address. */
export async function invitationEmail(
  ctx: Pick<AppContext, 'config'>,
  db: Executor,
  token: string,
): Promise<string | undefined> {
  return (await findInvitation(ctx, db, token))?.email
}

/** The invitation page's view of a link; the same error as a used or expired one when it is not valid. */
export async function getInvitation(ctx: Pick<AppContext, 'config' | 'db'>, token: string): Promise<InvitationView> {
  const invitation = await findInvitation(ctx, ctx.db, token)
  if (!invitation) throw invalidInvitation()
  return invitation
}
