import { and, eq } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { memberships, projects } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'

export type MemberRole = (typeof memberships.$inferSelect)['role']

/**
 * The project, when the user holds one of `roles` in it. Not a member: 404, as for a project that does not exist
 * (never reveal another user's project); a member with a lesser role: 403. With `lock`, the project row is locked
 * for the rest of the transaction, so a reset or delete never runs beside another one or a key rotation.
 */
export async function requireProjectRole(
  db: Executor,
  userId: string,
  projectId: string,
  roles: readonly MemberRole[],
  options: { lock?: boolean } = {},
): Promise<{ id: string; name: string; role: MemberRole }> {
  const query = db
    .select({ id: projects.id, name: projects.name, role: memberships.role })
    .from(projects)
    .innerJoin(memberships, eq(memberships.projectId, projects.id))
    .where(and(eq(projects.id, projectId), eq(memberships.userId, userId)))
  const [project] = options.lock ? await query.for('update', { of: projects }) : await query
  if (!project) throw notFound('Project')
  if (!roles.includes(project.role)) {
    throw new AppError('FORBIDDEN', `Only a project ${roles.join(' or ').toLowerCase()} can do this`)
  }
  return project
}
