import { and, eq } from 'drizzle-orm'
import type { Database, Executor } from '../../db/client.js'
import { memberships, projects } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { AuthProject } from '../../http/auth.js'
import { generateProjectKeys } from './keys.js'
import type { ProjectCreate, ProjectUpdate, ProjectView } from './schemas.js'

type Role = ProjectView['role']

const authColumns = {
  id: projects.id,
  name: projects.name,
  disabled: projects.disabled,
  disabledReason: projects.disabledReason,
  sendingPausedReason: projects.sendingPausedReason,
}

const viewColumns = {
  ...authColumns,
  public: projects.publicKey,
  secret: projects.secretKey,
  tracking: projects.tracking,
  role: memberships.role,
  createdAt: projects.createdAt,
  updatedAt: projects.updatedAt,
}

/** Keys are read on every API request and never cached, so a rotation takes effect on the next request. */
export async function findProjectByKey(
  db: Executor,
  kind: 'public' | 'secret',
  key: string,
): Promise<AuthProject | undefined> {
  const column = kind === 'public' ? projects.publicKey : projects.secretKey
  const [project] = await db.select(authColumns).from(projects).where(eq(column, key))
  return project
}

export async function findMemberProject(
  db: Executor,
  userId: string,
  projectId: string,
): Promise<AuthProject | undefined> {
  const [project] = await db
    .select(authColumns)
    .from(projects)
    .innerJoin(memberships, eq(memberships.projectId, projects.id))
    .where(and(eq(projects.id, projectId), eq(memberships.userId, userId)))
  return project
}

export async function listUserProjects(db: Executor, userId: string): Promise<ProjectView[]> {
  return db
    .select(viewColumns)
    .from(projects)
    .innerJoin(memberships, eq(memberships.projectId, projects.id))
    .where(eq(memberships.userId, userId))
    .orderBy(projects.createdAt)
}

async function getUserProject(
  db: Executor,
  userId: string,
  projectId: string,
  roles: readonly Role[],
): Promise<ProjectView> {
  const [project] = await db
    .select(viewColumns)
    .from(projects)
    .innerJoin(memberships, eq(memberships.projectId, projects.id))
    .where(and(eq(projects.id, projectId), eq(memberships.userId, userId)))
  if (!project) throw notFound('Project')
  if (!roles.includes(project.role)) {
    throw new AppError('FORBIDDEN', `Only a project ${roles.join(' or ').toLowerCase()} can do this`)
  }
  return project
}

export async function createProject(db: Database, userId: string, input: ProjectCreate): Promise<ProjectView> {
  return db.transaction(async (tx) => {
    const [project] = await tx
      .insert(projects)
      .values({ name: input.name, ...generateProjectKeys() })
      .returning({ id: projects.id })
    if (!project) throw new Error('project insert returned nothing')
    await tx.insert(memberships).values({ projectId: project.id, userId, role: 'OWNER' })
    return getUserProject(tx, userId, project.id, ['OWNER'])
  })
}

export async function updateProject(
  db: Database,
  userId: string,
  projectId: string,
  input: ProjectUpdate,
): Promise<ProjectView> {
  return db.transaction(async (tx) => {
    await getUserProject(tx, userId, projectId, ['OWNER', 'ADMIN'])
    const changes = { name: input.name, tracking: input.tracking }
    if (Object.values(changes).some((value) => value !== undefined)) {
      await tx.update(projects).set(changes).where(eq(projects.id, projectId))
    }
    return getUserProject(tx, userId, projectId, ['OWNER', 'ADMIN'])
  })
}

export async function regenerateProjectKeys(db: Database, userId: string, projectId: string): Promise<ProjectView> {
  return db.transaction(async (tx) => {
    await getUserProject(tx, userId, projectId, ['OWNER', 'ADMIN'])
    await tx.update(projects).set(generateProjectKeys()).where(eq(projects.id, projectId))
    return getUserProject(tx, userId, projectId, ['OWNER', 'ADMIN'])
  })
}

export async function deleteProject(db: Database, userId: string, projectId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await getUserProject(tx, userId, projectId, ['OWNER'])
    await tx.delete(projects).where(eq(projects.id, projectId))
  })
}
