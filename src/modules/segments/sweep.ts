import { asc, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import { segments } from '../../db/schema/index.js'
import { computeSegment } from './membership.js'
import { refreshSegmentCount } from './service.js'

export type SweepOptions = {
  /** Stop starting segments after this long, so one run never overlaps the next; the rest go first next time. */
  budgetMs: number
  /** Segments counted more recently than this are skipped (they were just written, refreshed or computed). */
  freshMs: number
}

export type SweepResult = { refreshed: number; computed: number; failed: number; left: number }

/**
 * The background sweep: brings every segment's cached count up to date, and computes tracked segments (their
 * membership diff and entry/exit events), which also catches what no event announces, such as a `within`
 * window sliding past a contact. Oldest count first, each segment in its own transaction.
 */
export async function sweepSegments(ctx: AppContext, options: SweepOptions): Promise<SweepResult> {
  const started = Date.now()
  const due = await ctx.db
    .select({ id: segments.id, projectId: segments.projectId, trackMembership: segments.trackMembership })
    .from(segments)
    .where(
      sql`${segments.memberCountAt} IS NULL OR ${segments.memberCountAt} < now() - make_interval(secs => ${options.freshMs / 1000})`,
    )
    .orderBy(sql`${segments.memberCountAt} ASC NULLS FIRST`, asc(segments.id))
  const result: SweepResult = { refreshed: 0, computed: 0, failed: 0, left: 0 }
  for (const [index, segment] of due.entries()) {
    if (Date.now() - started > options.budgetMs) {
      result.left = due.length - index
      break
    }
    try {
      if (segment.trackMembership) {
        await computeSegment(ctx.db, segment.projectId, segment.id)
        result.computed++
      } else {
        await refreshSegmentCount(ctx.db, segment.projectId, segment.id)
        result.refreshed++
      }
    } catch (err) {
      // A deleted segment, or a condition that no longer prepares: the others still get their turn.
      ctx.log.warn({ err, segmentId: segment.id }, 'segment sweep skipped a segment')
      result.failed++
    }
  }
  return result
}
