import { and, eq, inArray, sql } from 'drizzle-orm'
import { conditionSql, prepareCondition } from '../../conditions/index.js'
import type { Database, Executor, Transaction } from '../../db/client.js'
import { segments } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { ComputeResult } from './schemas.js'
import { findSegment, type Segment, saveMemberCount, segmentColumns } from './service.js'
import { applyMembershipDiff, countActiveMembers, type MembershipDiff } from './sql.js'

/**
 * Brings a tracked DYNAMIC segment's membership up to date with its condition, for the whole project or (with
 * `scope`) for some contacts only, inserting the entry and exit events in the same statement. The caller holds
 * the segment's `membership` lock.
 */
export async function diffDynamicMembership(
  db: Executor,
  segment: Segment,
  scope?: readonly string[],
): Promise<MembershipDiff> {
  if (!segment.condition) return { added: 0, removed: 0 }
  const prepared = await prepareCondition(db, segment.projectId, segment.condition, 'condition')
  return applyMembershipDiff(db, segment, conditionSql(prepared, sql`c`), scope)
}

/**
 * POST /segments/:id/compute and the background sweep: recomputes a tracked segment's membership (a STATIC
 * one's is its member list, so only its count moves) and stores the count.
 */
export async function computeSegment(db: Database, projectId: string, segmentId: string): Promise<ComputeResult> {
  return db.transaction(async (tx) => {
    const segment = await findSegment(tx, projectId, segmentId, 'membership')
    if (!segment.trackMembership) {
      throw new AppError('BAD_REQUEST', 'Segment does not have membership tracking enabled')
    }
    const diff = segment.type === 'DYNAMIC' ? await diffDynamicMembership(tx, segment) : { added: 0, removed: 0 }
    const total = await countActiveMembers(tx, segment.id)
    await saveMemberCount(tx, segment.id, total)
    return { ...diff, total }
  })
}

/**
 * Re-evaluates changed contacts (by project) against every tracked DYNAMIC segment of their projects: one
 * set-based diff per segment, its entry and exit events in the same statement, all in the caller's transaction.
 *
 * The segments are locked in id order, as every membership writer locks them, so writers never deadlock and
 * never emit an entry or exit twice; the price is waiting for a compute of the same segment that is running.
 * Each segment runs in a savepoint: one whose condition no longer prepares (say it now reaches past the limits
 * through a segment it refers to) is logged and left to the sweep, and the others still get their diff.
 */
export async function reevaluateContacts(
  tx: Transaction,
  log: Logger,
  contactsByProject: ReadonlyMap<string, readonly string[]>,
): Promise<void> {
  if (contactsByProject.size === 0) return
  const tracked = await tx
    .select(segmentColumns)
    .from(segments)
    .where(
      and(
        inArray(segments.projectId, [...contactsByProject.keys()]),
        eq(segments.trackMembership, true),
        eq(segments.type, 'DYNAMIC'),
      ),
    )
    .orderBy(segments.id)
    .for('no key update')
  for (const segment of tracked) {
    try {
      await tx.transaction((savepoint) =>
        diffDynamicMembership(savepoint, segment, contactsByProject.get(segment.projectId)),
      )
    } catch (err) {
      log.error({ err, segmentId: segment.id }, 'segment membership re-evaluation failed; left to the sweep')
    }
  }
}
