import { randomUUID } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import { allOk, createBatcher } from '../../db/batcher.js'
import { buildStatement } from '../../db/built-statement.js'
import type { Database, Executor } from '../../db/client.js'
import { memberships, projectBilling, projects } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { AuthProject } from '../../http/auth.js'
import { pixelMinHtmlLength } from '../../mail/outbound/tracking-html.js'
import { generateProjectKeys, keyLookupHash, revealProjectKeys, storeProjectKeys } from './keys.js'
import type { ProjectCreate, ProjectUpdate, ProjectView } from './schemas.js'

type Role = ProjectView['role']

const authColumns = {
  id: projects.id,
  name: projects.name,
  disabled: projects.disabled,
  disabledReason: projects.disabledReason,
  sendingPausedReason: projects.sendingPausedReason,
  marketingPausedReason: projects.marketingPausedReason,
}

const viewColumns = {
  ...authColumns,
  publicKeySealed: projects.publicKeySealed,
  secretKeySealed: projects.secretKeySealed,
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

type ViewRow = Omit<ProjectView, 'public' | 'secret' | 'trackingPixelMinHtmlLength'> & {
  publicKeySealed: string | null
  secretKeySealed: string | null
}

function toProjectView(secret: string, { publicKeySealed, secretKeySealed, ...row }: ViewRow): ProjectView {
  const keys = revealProjectKeys(secret, row.id, { publicKeySealed, secretKeySealed })
  return {
    ...row,
    trackingPixelMinHtmlLength: pixelMinHtmlLength,
    public: keys.publicKey,
    secret: keys.secretKey,
  }
}

export type KeyLookup = { kind: 'public' | 'secret'; key: string }

type KeyLookupRow = AuthProject & { publicKeyHash: string; secretKeyHash: string }

// Built once and named (db/built-statement.ts): every authenticated API request runs it, in batches.
const projectsByKeyHashes = buildStatement<{ public: string[]; secret: string[] }>(
  'auth-projects-by-key-hashes',
  sql`SELECT id, name, disabled, disabled_reason AS "disabledReason", sending_paused_reason AS "sendingPausedReason",
      marketing_paused_reason AS "marketingPausedReason", public_key_hash AS "publicKeyHash",
      secret_key_hash AS "secretKeyHash"
    FROM projects
    WHERE public_key_hash = ANY(${sql.placeholder('public')}::text[])
      OR secret_key_hash = ANY(${sql.placeholder('secret')}::text[])`,
)

/** Many key lookups in one statement (the auth batcher's), results in input order. Keys are never cached. */
async function findProjectsByKeys(
  db: Executor,
  secret: string,
  lookups: readonly KeyLookup[],
): Promise<(AuthProject | undefined)[]> {
  const hashed = lookups.map(({ kind, key }) => ({ kind, hash: keyLookupHash(secret, key) }))
  const hashesOf = (kind: KeyLookup['kind']) => hashed.filter((lookup) => lookup.kind === kind).map(({ hash }) => hash)
  const { rows } = await projectsByKeyHashes<KeyLookupRow>(db, {
    public: hashesOf('public'),
    secret: hashesOf('secret'),
  })
  const byHash = new Map<string, AuthProject>()
  for (const { publicKeyHash, secretKeyHash, ...project } of rows) {
    byHash.set(`public:${publicKeyHash}`, project)
    byHash.set(`secret:${secretKeyHash}`, project)
  }
  return hashed.map(({ kind, hash }) => byHash.get(`${kind}:${hash}`))
}

/**
 * Key lookups of concurrent requests gathered into one query (see createBatcher); still no cache, so a
 * rotated key fails on the very next request.
 */
export function batchedKeyLookup(
  db: Executor,
  secret: string,
): (kind: KeyLookup['kind'], key: string) => Promise<AuthProject | undefined> {
  const lookup = createBatcher<KeyLookup, AuthProject | undefined>({
    maxSize: 256,
    maxInFlight: 2,
    run: async (items) => allOk(await findProjectsByKeys(db, secret, items)),
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

export async function listUserProjects(db: Executor, secret: string, userId: string): Promise<ProjectView[]> {
  const rows = await selectProjectViews(db, userId).orderBy(projects.createdAt)
  return rows.map((row) => toProjectView(secret, row))
}

async function getUserProject(
  db: Executor,
  secret: string,
  userId: string,
  projectId: string,
  roles: readonly Role[],
): Promise<ProjectView> {
  const [project] = await selectProjectViews(db, userId).where(eq(projects.id, projectId))
  if (!project) throw notFound('Project')
  if (!roles.includes(project.role)) {
    throw new AppError('FORBIDDEN', `Only a project ${roles.join(' or ').toLowerCase()} can do this`)
  }
  return toProjectView(secret, project)
}

export async function createProject(
  db: Database,
  secret: string,
  userId: string,
  input: ProjectCreate,
): Promise<ProjectView> {
  // The id is chosen here: the sealed keys are bound to it.
  const id = randomUUID()
  return db.transaction(async (tx) => {
    await tx.insert(projects).values({ id, name: input.name, ...storeProjectKeys(secret, id, generateProjectKeys()) })
    await tx.insert(memberships).values({ projectId: id, userId, role: 'OWNER' })
    return getUserProject(tx, secret, userId, id, ['OWNER'])
  })
}

export async function updateProject(
  db: Database,
  secret: string,
  userId: string,
  projectId: string,
  input: ProjectUpdate,
): Promise<ProjectView> {
  return db.transaction(async (tx) => {
    await getUserProject(tx, secret, userId, projectId, ['OWNER', 'ADMIN'])
    const changes = { name: input.name, tracking: input.tracking }
    if (Object.values(changes).some((value) => value !== undefined)) {
      await tx.update(projects).set(changes).where(eq(projects.id, projectId))
    }
    return getUserProject(tx, secret, userId, projectId, ['OWNER', 'ADMIN'])
  })
}

export async function regenerateProjectKeys(
  db: Database,
  secret: string,
  userId: string,
  projectId: string,
): Promise<ProjectView> {
  return db.transaction(async (tx) => {
    await getUserProject(tx, secret, userId, projectId, ['OWNER', 'ADMIN'])
    const keys = storeProjectKeys(secret, projectId, generateProjectKeys())
    await tx.update(projects).set(keys).where(eq(projects.id, projectId))
    return getUserProject(tx, secret, userId, projectId, ['OWNER', 'ADMIN'])
  })
}
