import { and, asc, eq, isNull } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { invitations, memberships, users } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import type { MemberRole } from '../../http/auth.js'
import type { ProjectActor } from '../../http/project.js'
import { normalizeEmail } from '../../mail/address.js'
import { endUserSessions } from '../sessions/session.js'
import { wakeSystemMail } from '../system-mail/service.js'
import { queueInvitation } from './invitations.js'
import type { InviteResult, MemberInvite, MemberView } from './schemas.js'

const memberColumns = {
  userId: memberships.userId,
  email: users.email,
  role: memberships.role,
  createdAt: memberships.createdAt,
}

export async function listMembers(db: Executor, projectId: string): Promise<MemberView[]> {
  return db
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.projectId, projectId))
    .orderBy(asc(memberships.createdAt), asc(memberships.userId))
}

/** Owners are made, changed and removed by owners only; admins manage everyone below. */
function requireOwnerFor(actor: ProjectActor, what: string): void {
  if (actor.role !== 'OWNER') throw new AppError('FORBIDDEN', `Only a project owner can ${what}`)
}

const lastOwner = () =>
  new AppError('CONFLICT', 'A project needs at least one owner', {
    suggestion: 'Make another member an owner first',
  })

/**
 * The project's owners, locked: two owners demoting or removing each other at once serialise here, so the
 * project never ends up with none.
 */
async function lockOwners(tx: Executor, projectId: string): Promise<string[]> {
  const rows = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.projectId, projectId), eq(memberships.role, 'OWNER')))
    .for('update')
  return rows.map((row) => row.userId)
}

async function findMember(tx: Executor, projectId: string, userId: string) {
  const [member] = await tx
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
    .for('update', { of: memberships })
  if (!member) throw new AppError('NOT_FOUND', 'Member not found')
  return member
}

export async function inviteMember(
  ctx: AppContext,
  projectId: string,
  actor: ProjectActor,
  input: MemberInvite,
): Promise<InviteResult> {
  if (input.role === 'OWNER') requireOwnerFor(actor, 'add an owner')
  const email = normalizeEmail(input.email)
  const result = await ctx.db.transaction(async (tx): Promise<InviteResult> => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email))
    if (!user) {
      await queueInvitation(ctx, tx, { projectId, email, role: input.role, invitedBy: actor.userId })
      return { userId: null, email, role: input.role, status: 'INVITED' }
    }
    const [added] = await tx
      .insert(memberships)
      .values({ projectId, userId: user.id, role: input.role })
      .onConflictDoNothing()
      .returning({ userId: memberships.userId })
    if (!added) throw new AppError('CONFLICT', 'This user is already a member of the project')
    // An invitation mailed before they had an account is moot now: it leaves the pending list.
    await tx
      .delete(invitations)
      .where(and(eq(invitations.projectId, projectId), eq(invitations.email, email), isNull(invitations.acceptedAt)))
    return { userId: user.id, email, role: input.role, status: 'ACTIVE' }
  })
  if (result.status === 'INVITED') wakeSystemMail(ctx)
  return result
}

export async function changeMemberRole(
  db: AppContext['db'],
  projectId: string,
  actor: ProjectActor,
  userId: string,
  role: MemberRole,
): Promise<Omit<MemberView, 'createdAt'>> {
  return db.transaction(async (tx) => {
    const owners = await lockOwners(tx, projectId)
    const member = await findMember(tx, projectId, userId)
    if (member.role === 'OWNER' || role === 'OWNER') requireOwnerFor(actor, 'make or change an owner')
    if (member.role === 'OWNER' && role !== 'OWNER' && owners.length <= 1) throw lastOwner()
    await tx
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
    return { userId, email: member.email, role }
  })
}

/**
 * Removes a member, or lets a member leave. Removing someone else takes an admin (an owner for an owner). The
 * removed user's sessions end at once; one leaving keeps their own session.
 */
export async function removeMember(
  db: AppContext['db'],
  projectId: string,
  actor: ProjectActor & { sessionId: string | null },
  userId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const owners = await lockOwners(tx, projectId)
    const member = await findMember(tx, projectId, userId)
    const leaving = actor.userId === userId
    if (!leaving && actor.role === 'MEMBER') {
      throw new AppError('FORBIDDEN', 'Only a project admin or owner can remove another member')
    }
    if (member.role === 'OWNER' && !leaving) requireOwnerFor(actor, 'remove an owner')
    if (member.role === 'OWNER' && owners.length <= 1) throw lastOwner()
    await tx.delete(memberships).where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
    await endUserSessions(tx, userId, leaving ? actor.sessionId : null)
  })
}
