import { and, desc, eq, inArray, isNotNull, or } from 'drizzle-orm'
import {
  type ConditionTree,
  conditionReferences,
  countMatchingContacts,
  prepareCondition,
} from '../../conditions/index.js'
import type { Database, Executor } from '../../db/client.js'
import { uuidPattern } from '../../db/keyset.js'
import { campaigns, segments } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { SegmentCreate, SegmentUpdate } from './schemas.js'
import { countActiveMembers } from './sql.js'

/** A segment as the API shows it: the row without `memberCountAt`. */
export type Segment = Omit<typeof segments.$inferSelect, 'memberCountAt'>

export const segmentColumns = {
  id: segments.id,
  name: segments.name,
  description: segments.description,
  type: segments.type,
  condition: segments.condition,
  trackMembership: segments.trackMembership,
  memberCount: segments.memberCount,
  projectId: segments.projectId,
  createdAt: segments.createdAt,
  updatedAt: segments.updatedAt,
}

/**
 * Row locks on a segment: `membership` is held by every writer of its memberships and by updates (FOR NO KEY
 * UPDATE, which the foreign-key checks of membership and campaign inserts do not wait for); `delete` also makes
 * those inserts wait (FOR UPDATE).
 */
const lockStrength = { membership: 'no key update', delete: 'update' } as const

/** The project's segment, or 404 (also for an id that is not a uuid, as Plunk answers). */
export async function findSegment(
  db: Executor,
  projectId: string,
  segmentId: string,
  lock?: keyof typeof lockStrength,
): Promise<Segment> {
  if (!uuidPattern.test(segmentId)) throw notFound('Segment')
  const query = db
    .select(segmentColumns)
    .from(segments)
    .where(and(eq(segments.id, segmentId), eq(segments.projectId, projectId)))
  const [row] = lock ? await query.for(lockStrength[lock]) : await query
  if (!row) throw notFound('Segment')
  return row
}

/** Every segment of the project, newest first, with its cached member count. */
export function listSegments(db: Executor, projectId: string): Promise<Segment[]> {
  return db
    .select(segmentColumns)
    .from(segments)
    .where(eq(segments.projectId, projectId))
    .orderBy(desc(segments.createdAt), desc(segments.id))
}

/**
 * Checks the segments the condition refers to (same project, no cycle, within the limits: 422 under
 * `condition`; `segmentId` is the segment being defined, which must not end up referring to itself) and returns
 * how many contacts match it now.
 */
async function countConditionMembers(
  db: Executor,
  projectId: string,
  condition: ConditionTree,
  segmentId?: string,
): Promise<number> {
  const prepared = await prepareCondition(db, projectId, condition, 'condition', { segmentId })
  return countMatchingContacts(db, projectId, prepared)
}

export async function createSegment(db: Executor, projectId: string, input: SegmentCreate): Promise<Segment> {
  const memberCount = input.condition ? await countConditionMembers(db, projectId, input.condition) : 0
  const [row] = await db
    .insert(segments)
    .values({ ...input, projectId, memberCount, memberCountAt: new Date() })
    .returning(segmentColumns)
  if (!row) throw new Error('segment insert returned nothing')
  return row
}

/** Name, description, tracking, and the condition of a DYNAMIC segment (recounted); `type` never changes. */
export async function updateSegment(
  db: Database,
  projectId: string,
  segmentId: string,
  input: SegmentUpdate,
): Promise<Segment> {
  return db.transaction(async (tx) => {
    const current = await findSegment(tx, projectId, segmentId, 'membership')
    const { condition, ...fields } = input
    const recount =
      condition && current.type === 'DYNAMIC'
        ? {
            condition,
            memberCount: await countConditionMembers(tx, projectId, condition, segmentId),
            memberCountAt: new Date(),
          }
        : {}
    const changes = { ...fields, ...recount }
    if (Object.keys(changes).length === 0) return current
    const [row] = await tx
      .update(segments)
      .set({ ...changes, updatedAt: new Date() })
      .where(eq(segments.id, segmentId))
      .returning(segmentColumns)
    return row ?? current
  })
}

const activeCampaignStatuses = ['DRAFT', 'SCHEDULED', 'SENDING'] as const

/**
 * 409 while a campaign that has not finished uses the segment as its audience (by `segmentId`, or through
 * `memberOfSegment` in a FILTERED audience), or another segment's condition refers to it: either would lose its
 * audience. The row lock makes a campaign created meanwhile wait (its foreign key check needs the row).
 */
export async function deleteSegment(db: Database, projectId: string, segmentId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await findSegment(tx, projectId, segmentId, 'delete')
    const users = await findSegmentUsers(tx, projectId, segmentId)
    if (users.campaigns.length > 0) {
      throw new AppError(
        'CONFLICT',
        `Cannot delete segment: it is used by ${users.campaigns.length} campaign(s) that are not finished. Remove it from them first or wait for them to complete.`,
        { details: users },
      )
    }
    if (users.segments.length > 0) {
      throw new AppError('CONFLICT', 'Cannot delete segment: other segments refer to it', { details: users })
    }
    await tx.delete(segments).where(and(eq(segments.id, segmentId), eq(segments.projectId, projectId)))
  })
}

type SegmentUsers = { campaigns: { id: string; name: string }[]; segments: { id: string; name: string }[] }

async function findSegmentUsers(db: Executor, projectId: string, segmentId: string): Promise<SegmentUsers> {
  const [activeCampaigns, otherSegments] = await Promise.all([
    db
      .select({
        id: campaigns.id,
        name: campaigns.name,
        segmentId: campaigns.segmentId,
        audienceCondition: campaigns.audienceCondition,
      })
      .from(campaigns)
      .where(
        and(
          eq(campaigns.projectId, projectId),
          inArray(campaigns.status, activeCampaignStatuses),
          or(eq(campaigns.segmentId, segmentId), isNotNull(campaigns.audienceCondition)),
        ),
      ),
    db
      .select({ id: segments.id, name: segments.name, condition: segments.condition })
      .from(segments)
      .where(and(eq(segments.projectId, projectId), isNotNull(segments.condition))),
  ])
  const refersToIt = (condition: ConditionTree | null) =>
    condition !== null && conditionReferences(condition).segmentIds.includes(segmentId)
  return {
    campaigns: activeCampaigns
      .filter((campaign) => campaign.segmentId === segmentId || refersToIt(campaign.audienceCondition))
      .map(({ id, name }) => ({ id, name })),
    segments: otherSegments
      .filter((segment) => segment.id !== segmentId && refersToIt(segment.condition))
      .map(({ id, name }) => ({ id, name })),
  }
}

/** How many contacts are in the segment now: active members of a STATIC one, live matches of a DYNAMIC one. */
async function countSegmentMembers(db: Executor, segment: Segment): Promise<number> {
  if (segment.type === 'STATIC' || !segment.condition) return countActiveMembers(db, segment.id)
  const prepared = await prepareCondition(db, segment.projectId, segment.condition, 'condition')
  return countMatchingContacts(db, segment.projectId, prepared)
}

export async function saveMemberCount(db: Executor, segmentId: string, memberCount: number): Promise<void> {
  await db.update(segments).set({ memberCount, memberCountAt: new Date() }).where(eq(segments.id, segmentId))
}

/** POST /segments/:id/refresh: the count only, no membership writes and no events. */
export async function refreshSegmentCount(
  db: Executor,
  projectId: string,
  segmentId: string,
): Promise<{ memberCount: number }> {
  const segment = await findSegment(db, projectId, segmentId)
  const memberCount = await countSegmentMembers(db, segment)
  await saveMemberCount(db, segment.id, memberCount)
  return { memberCount }
}
