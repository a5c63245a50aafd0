import { sql } from 'drizzle-orm'
import type { Config } from '../../config.js'
import type { Executor } from '../../db/client.js'
import type { Logger } from '../../logger.js'
import { holdQueuedEmails } from '../delivery/sql.js'
import { percent, type WindowCounts } from './rates.js'
import type { Stream } from './streams.js'

export type Thresholds = Config['reputation']

/** What a pause holds: the marketing stream, or all of the project's sending. */
export type PauseScope = 'MARKETING' | 'PROJECT'

export type Verdict = {
  reason: 'BOUNCE_RATE' | 'COMPLAINT_RATE'
  message: string
}

/** The rates a window is judged against: the warning thresholds or the ceiling. */
export type Limits = { bounceRatePercent: number; complaintRatePercent: number; minSent: number; name: string }

export const warningLimits = (thresholds: Thresholds): Limits => ({ ...thresholds, name: 'limit' })

export const ceilingLimits = (thresholds: Thresholds): Limits => ({
  bounceRatePercent: thresholds.ceilingBounceRatePercent,
  complaintRatePercent: thresholds.ceilingComplaintRatePercent,
  minSent: thresholds.minSent,
  name: 'ceiling',
})

/**
 * Whether a window's counts reach the limits; below the minimum volume nothing does. `stream` names the stream the
 * counts are of in the message (none: all of the project's mail).
 */
export function judge(counts: WindowCounts, limits: Limits, stream?: Stream): Verdict | undefined {
  if (counts.sent < limits.minSent) return undefined
  const prefix = stream ? `7-day ${stream}` : '7-day'
  const emails = stream ? `${stream} emails` : 'emails'
  const bounceRate = percent(counts.bounces, counts.sent)
  if (bounceRate >= limits.bounceRatePercent) {
    return {
      reason: 'BOUNCE_RATE',
      message: `${prefix} bounce rate ${bounceRate.toFixed(2)}% (${counts.bounces} permanent bounces of ${counts.sent} ${emails}) reached the ${limits.bounceRatePercent}% ${limits.name}`,
    }
  }
  const complaintRate = percent(counts.complaints, counts.sent)
  if (complaintRate >= limits.complaintRatePercent) {
    return {
      reason: 'COMPLAINT_RATE',
      message: `${prefix} complaint rate ${complaintRate.toFixed(2)}% (${counts.complaints} complaints of ${counts.sent} ${emails}) reached the ${limits.complaintRatePercent}% ${limits.name}`,
    }
  }
  return undefined
}

type GuardWindowRow = {
  project_id: string
  marketing_paused: boolean
  marketing_sent: number
  marketing_bounces: number
  marketing_complaints: number
  transactional_sent: number
  transactional_bounces: number
  transactional_complaints: number
}

/**
 * Each stream's 7-day guard counts for the projects among `projectIds` whose sending is not all paused (the system
 * project never: no owner could review and lift its pause, and held verification and reset mail would lock users
 * out). After an owner lifted a stream's pause less than 7 days ago, its window starts at the lift instead: the
 * hour of the lift minus what that hour held at the lift, so the old bounces that caused the pause do not pause
 * the stream again. The marketing stream's window follows MARKETING lifts, the transactional stream's PROJECT ones.
 */
async function guardWindows(db: Executor, projectIds: readonly string[]): Promise<GuardWindowRow[]> {
  const lastLift = (scope: PauseScope) => sql`
    SELECT s.lifted_at, s.baseline_sent, s.baseline_bounces, s.baseline_complaints, s.baseline_marketing_sent,
      s.baseline_marketing_bounces, s.baseline_marketing_complaints
    FROM project_suspensions s
    WHERE s.project_id = p.id AND s.scope = ${scope} AND s.lifted_at > now() - interval '7 days'
    ORDER BY s.lifted_at DESC
    LIMIT 1`
  const week = sql`date_trunc('hour', now(), 'UTC') - interval '167 hours'`
  const result = await db.execute<GuardWindowRow>(sql`
    WITH windows AS (
      SELECT p.id AS project_id, p.marketing_paused_reason IS NOT NULL AS marketing_paused,
        COALESCE(date_trunc('hour', m.lifted_at, 'UTC'), ${week}) AS m_since,
        COALESCE(m.baseline_marketing_sent, 0) AS m_sent,
        COALESCE(m.baseline_marketing_bounces, 0) AS m_bounces,
        COALESCE(m.baseline_marketing_complaints, 0) AS m_complaints,
        COALESCE(date_trunc('hour', t.lifted_at, 'UTC'), ${week}) AS t_since,
        COALESCE(t.baseline_sent - t.baseline_marketing_sent, 0) AS t_sent,
        COALESCE(t.baseline_bounces - t.baseline_marketing_bounces, 0) AS t_bounces,
        COALESCE(t.baseline_complaints - t.baseline_marketing_complaints, 0) AS t_complaints
      FROM projects p
      LEFT JOIN LATERAL (${lastLift('MARKETING')}) m ON true
      LEFT JOIN LATERAL (${lastLift('PROJECT')}) t ON true
      WHERE p.id = ANY(${sql.param(projectIds)}::uuid[]) AND p.sending_paused_reason IS NULL AND NOT p.system
    )
    SELECT w.project_id, w.marketing_paused, c.*
    FROM windows w, LATERAL (
      SELECT
        (COALESCE(sum(r.marketing_sent) FILTER (WHERE r.hour >= w.m_since), 0) - w.m_sent)::int AS marketing_sent,
        (COALESCE(sum(r.marketing_bounces) FILTER (WHERE r.hour >= w.m_since), 0) - w.m_bounces)::int
          AS marketing_bounces,
        (COALESCE(sum(r.marketing_complaints) FILTER (WHERE r.hour >= w.m_since), 0) - w.m_complaints)::int
          AS marketing_complaints,
        (COALESCE(sum(r.sent - r.marketing_sent) FILTER (WHERE r.hour >= w.t_since), 0) - w.t_sent)::int
          AS transactional_sent,
        (COALESCE(sum(r.bounces - r.marketing_bounces) FILTER (WHERE r.hour >= w.t_since), 0) - w.t_bounces)::int
          AS transactional_bounces,
        (COALESCE(sum(r.complaints - r.marketing_complaints) FILTER (WHERE r.hour >= w.t_since), 0)
          - w.t_complaints)::int AS transactional_complaints
      FROM reputation_counts r
      WHERE r.project_id = w.project_id AND r.hour >= least(w.m_since, w.t_since)
    ) c`)
  return result.rows
}

type Pause = Verdict & {
  projectId: string
  scope: PauseScope
  sent: number
  bounces: number
  complaints: number
  bounceRate: number
  complaintRate: number
}

function pauseOf(projectId: string, scope: PauseScope, counts: WindowCounts, verdict: Verdict | undefined): Pause[] {
  if (!verdict) return []
  return [
    {
      projectId,
      scope,
      ...verdict,
      ...counts,
      bounceRate: percent(counts.bounces, counts.sent),
      complaintRate: percent(counts.complaints, counts.sent),
    },
  ]
}

/** Which pauses the guard's counts call for: marketing at the warning thresholds, all sending at the ceiling. */
export function pausesDue(rows: readonly GuardWindowRow[], thresholds: Thresholds): Pause[] {
  return rows.flatMap((row) => {
    const marketing = { sent: row.marketing_sent, bounces: row.marketing_bounces, complaints: row.marketing_complaints }
    const transactional = {
      sent: row.transactional_sent,
      bounces: row.transactional_bounces,
      complaints: row.transactional_complaints,
    }
    return [
      ...(row.marketing_paused
        ? []
        : pauseOf(row.project_id, 'MARKETING', marketing, judge(marketing, warningLimits(thresholds), 'marketing'))),
      ...pauseOf(
        row.project_id,
        'PROJECT',
        transactional,
        judge(transactional, ceilingLimits(thresholds), 'transactional'),
      ),
    ]
  })
}

/**
 * Re-evaluates the given projects (those that just got a bounce or complaint) and pauses what their streams'
 * rates call for: an open `project_suspensions` row of its scope plus the project's reason (`marketing_paused_reason`
 * or `sending_paused_reason`), and the queued emails it holds moved out of the outbox's way, in the caller's
 * transaction. Returns the pauses it opened.
 */
export async function enforceThresholds(
  db: Executor,
  log: Logger,
  thresholds: Thresholds,
  projectIds: readonly string[],
): Promise<{ projectId: string; scope: PauseScope }[]> {
  if (!thresholds.enabled || projectIds.length === 0) return []
  const pauses = pausesDue(await guardWindows(db, projectIds), thresholds)
  if (pauses.length === 0) return []
  // One UPDATE per project: a statement may not change the same row twice.
  const result = await db.execute<{ id: string; marketing: boolean; project: boolean }>(sql`
    WITH opened AS (
      INSERT INTO project_suspensions (project_id, scope, reason, message, sent, bounces, complaints, bounce_rate,
        complaint_rate)
      SELECT v."projectId", v.scope, v.reason, v.message, v.sent, v.bounces, v.complaints, v."bounceRate",
        v."complaintRate"
      FROM jsonb_to_recordset(${JSON.stringify(pauses)}::jsonb) AS v("projectId" uuid, scope text, reason text,
        message text, sent int, bounces int, complaints int, "bounceRate" float8, "complaintRate" float8)
      ON CONFLICT (project_id, scope) WHERE lifted_at IS NULL DO NOTHING
      RETURNING project_id, scope, message
    ), per_project AS (
      SELECT project_id, max(message) FILTER (WHERE scope = 'MARKETING') AS marketing,
        max(message) FILTER (WHERE scope = 'PROJECT') AS project
      FROM opened GROUP BY project_id
    )
    UPDATE projects p
    SET marketing_paused_reason = coalesce(o.marketing, p.marketing_paused_reason),
      sending_paused_reason = coalesce(o.project, p.sending_paused_reason), updated_at = now()
    FROM per_project o WHERE p.id = o.project_id
    RETURNING p.id, o.marketing IS NOT NULL AS marketing, o.project IS NOT NULL AS project`)
  const whole = result.rows.filter((row) => row.project).map((row) => row.id)
  const marketingOnly = result.rows.filter((row) => row.marketing && !row.project).map((row) => row.id)
  await holdQueuedEmails(db, whole)
  await holdQueuedEmails(db, marketingOnly, 'marketing')
  const opened = result.rows.flatMap((row) => [
    ...(row.marketing ? [{ projectId: row.id, scope: 'MARKETING' as const }] : []),
    ...(row.project ? [{ projectId: row.id, scope: 'PROJECT' as const }] : []),
  ])
  if (opened.length > 0) {
    const logged = pauses.filter((p) => opened.some((o) => o.projectId === p.projectId && o.scope === p.scope))
    log.warn({ pauses: logged }, 'reputation guard paused sending')
  }
  return opened
}
