import { and, eq, sql } from 'drizzle-orm'
import { allOk, createBatcher } from '../../db/batcher.js'
import type { Database, Executor } from '../../db/client.js'
import { memberships, projectBilling, projects } from '../../db/schema/index.js'
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
  customer: projectBilling.stripeCustomerId,
  subscription: projectBilling.stripeSubscriptionId,
  subscriptionStatus: projectBilling.subscriptionStatus,
  createdAt: projects.createdAt,
  updatedAt: projects.updatedAt,
}

/** The projects a user belongs to, as their record shows them: keys, role and billing (absent: no row yet). */
function selectProjectViews(db: Executor, userId: string) {
  return db
    .select(viewColumns)
    .from(projects)
    .innerJoin(memberships, and(eq(memberships.projectId, projects.id), eq(memberships.userId, userId)))
    .leftJoin(projectBilling, eq(projectBilling.projectId, projects.id))
}

export type KeyLookup = { kind: 'public' | 'secret'; key: string }

/** Many key lookups in one statement (the auth batcher's), results in input order. Keys are never cached. */
export async function findProjectsByKeys(
  db: Executor,
  lookups: readonly KeyLookup[],
): Promise<(AuthProject | undefined)[]> {
  const keysOf = (kind: KeyLookup['kind']) => lookups.filter((lookup) => lookup.kind === kind).map(({ key }) => key)
  const rows = await db
    .select({ ...authColumns, publicKey: projects.publicKey, secretKey: projects.secretKey })
    .from(projects)
    .where(
      sql`${projects.publicKey} = ANY(${sql.param(keysOf('public'))}::text[]) OR ${projects.secretKey} = ANY(${sql.param(keysOf('secret'))}::text[])`,
    )
  const byKey = new Map<string, AuthProject>()
  for (const { publicKey, secretKey, ...project } of rows) {
    byKey.set(`public:${publicKey}`, project)
    byKey.set(`secret:${secretKey}`, project)
  }
  return lookups.map(({ kind, key }) => byKey.get(`${kind}:${key}`))
}

/**
 * Key lookups of concurrent requests gathered into one query (see createBatcher); still no cache, so a
 * rotated key fails on the very next request.
 */
export function batchedKeyLookup(
  db: Executor,
): (kind: KeyLookup['kind'], key: string) => Promise<AuthProject | undefined> {
  const lookup = createBatcher<KeyLookup, AuthProject | undefined>({
    maxSize: 256,
    maxInFlight: 2,
    run: async (items) => allOk(await findProjectsByKeys(db, items)),
  })
  return (kind, key) => lookup({ kind, key })
}

export async function findMemberProject(
  db: Executor,
  userId: string,
  projectId: string,
): Promise<(AuthProject & { role: Role }) | undefined> {
  const [project] = await db
    .select({ ...authColumns, role: memberships.role })
    .from(projects)
    .innerJoin(memberships, eq(memberships.projectId, projects.id))
    .where(and(eq(projects.id, projectId), eq(memberships.userId, userId)))
  return project
}

export async function listUserProjects(db: Executor, userId: string): Promise<ProjectView[]> {
  return selectProjectViews(db, userId).orderBy(projects.createdAt)
}

async function getUserProject(
  db: Executor,
  userId: string,
  projectId: string,
  roles: readonly Role[],
): Promise<ProjectView> {
  const [project] = await selectProjectViews(db, userId).where(eq(projects.id, projectId))
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
