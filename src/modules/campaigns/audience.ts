import { and, eq, type SQL, sql } from 'drizzle-orm'
import { type ConditionTree, conditionSql, prepareCondition } from '../../conditions/index.js'
import type { Executor } from '../../db/client.js'
import { type campaigns, segments } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'

/** What decides who a campaign goes to. */
export type CampaignAudience = Pick<
  typeof campaigns.$inferSelect,
  'audienceType' | 'audienceCondition' | 'segmentId' | 'type'
>

const segmentGone = () =>
  new AppError('BAD_REQUEST', 'The campaign’s segment no longer exists; choose another audience')

/**
 * Members of a segment now, through the engine's own segment filter, so an audience means what the segment's
 * member list means: the active memberships of a STATIC segment, the live condition of a DYNAMIC one.
 */
async function segmentMembersSql(
  db: Executor,
  projectId: string,
  segmentId: string,
  contact: SQL,
  now: Date,
): Promise<SQL> {
  // Checked first for a clear answer: the engine would name a missing segment as a 422 at a filter path.
  const [segment] = await db
    .select({ id: segments.id })
    .from(segments)
    .where(and(eq(segments.id, segmentId), eq(segments.projectId, projectId)))
  if (!segment) throw segmentGone()
  const members: ConditionTree = {
    logic: 'AND',
    groups: [{ filters: [{ field: `segment.${segmentId}`, operator: 'memberOfSegment' }] }],
  }
  return conditionSql(await prepareCondition(db, projectId, members), contact, now)
}

/** Who the audience type selects, before the subscription and suppression rules. */
async function selectionSql(
  db: Executor,
  projectId: string,
  campaign: CampaignAudience,
  contact: SQL,
  now: Date,
): Promise<SQL> {
  switch (campaign.audienceType) {
    case 'ALL':
      return sql`true`
    case 'SEGMENT':
      if (!campaign.segmentId) throw segmentGone()
      return segmentMembersSql(db, projectId, campaign.segmentId, contact, now)
    case 'FILTERED':
      if (!campaign.audienceCondition) throw new AppError('BAD_REQUEST', 'The campaign has no audience condition')
      return conditionSql(await prepareCondition(db, projectId, campaign.audienceCondition), contact, now)
  }
}

/**
 * The whole audience of a campaign as one predicate over a row of `contacts` aliased `contact` (for example
 * sql`c` in `FROM contacts AS c`): the project's contacts its audience type selects, subscribed ones only
 * unless the campaign is TRANSACTIONAL (DESIGN.md §4), and never an address on the suppression list.
 * Values are bound parameters; segments are read once, here, not per contact. `now` is what "within" and
 * "older than" filters measure from: a fan-out that queues the audience in chunks passes one `now` to every
 * chunk, so the audience does not drift while it is queued.
 */
export async function audienceSql(
  db: Executor,
  projectId: string,
  campaign: CampaignAudience,
  contact: SQL,
  now: Date = new Date(),
): Promise<SQL> {
  const rules = [
    sql`${contact}.project_id = ${projectId}`,
    await selectionSql(db, projectId, campaign, contact, now),
    sql`NOT EXISTS (SELECT 1 FROM suppressions AS audience_suppression
      WHERE audience_suppression.project_id = ${projectId} AND audience_suppression.email = ${contact}.email)`,
  ]
  if (campaign.type !== 'TRANSACTIONAL') rules.push(sql`${contact}.subscribed`)
  return sql.join(
    rules.map((rule) => sql`(${rule})`),
    sql` AND `,
  )
}

/** How many contacts the campaign would go to now, in one query. */
export async function countAudience(db: Executor, projectId: string, campaign: CampaignAudience): Promise<number> {
  const contact = sql`audience_contact`
  const result = await db.execute<{ total: number }>(sql`
    SELECT count(*)::int AS total FROM contacts AS audience_contact
    WHERE ${await audienceSql(db, projectId, campaign, contact)}`)
  return result.rows[0]?.total ?? 0
}
