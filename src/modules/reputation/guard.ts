import { sql } from 'drizzle-orm'
import type { Config } from '../../config.js'
import type { Executor } from '../../db/client.js'
import type { Logger } from '../../logger.js'
import { holdQueuedEmails } from '../delivery/sql.js'
import { percent, type WindowCounts } from './rates.js'

export type Thresholds = Config['reputation']

export type Verdict = {
  reason: 'BOUNCE_RATE' | 'COMPLAINT_RATE'
  message: string
}

/** Whether a window's counts call for a pause; below the minimum volume nothing does. */
export function judge(counts: WindowCounts, thresholds: Thresholds): Verdict | undefined {
  if (counts.sent < thresholds.minSent) return undefined
  const bounceRate = percent(counts.bounces, counts.sent)
  if (bounceRate >= thresholds.bounceRatePercent) {
    return {
      reason: 'BOUNCE_RATE',
      message: `7-day bounce rate ${bounceRate.toFixed(2)}% (${counts.bounces} permanent bounces of ${counts.sent} emails) reached the ${thresholds.bounceRatePercent}% limit`,
    }
  }
  const complaintRate = percent(counts.complaints, counts.sent)
  if (complaintRate >= thresholds.complaintRatePercent) {
    return {
      reason: 'COMPLAINT_RATE',
      message: `7-day complaint rate ${complaintRate.toFixed(2)}% (${counts.complaints} complaints of ${counts.sent} emails) reached the ${thresholds.complaintRatePercent}% limit`,
    }
  }
  return undefined
}

type GuardWindowRow = { project_id: string; sent: number; bounces: number; complaints: number }

/**
 * The guard's 7-day counts for active (not paused) projects among `projectIds`. After an owner lifted a pause
 * less than 7 days ago, the window starts at the lift instead: the hour of the lift minus what that hour held
 * at the lift, so the old bounces that caused the pause do not pause the project again.
 */
async function guardWindows(db: Executor, projectIds: readonly string[]): Promise<GuardWindowRow[]> {
  const result = await db.execute<GuardWindowRow>(sql`
    WITH windows AS (
      SELECT p.id AS project_id,
        COALESCE(date_trunc('hour', l.lifted_at, 'UTC'), date_trunc('hour', now(), 'UTC') - interval '167 hours') AS since,
        COALESCE(l.baseline_sent, 0) AS base_sent,
        COALESCE(l.baseline_bounces, 0) AS base_bounces,
        COALESCE(l.baseline_complaints, 0) AS base_complaints
      FROM projects p
      LEFT JOIN LATERAL (
        SELECT s.lifted_at, s.baseline_sent, s.baseline_bounces, s.baseline_complaints
        FROM project_suspensions s
        WHERE s.project_id = p.id AND s.lifted_at > now() - interval '7 days'
        ORDER BY s.lifted_at DESC
        LIMIT 1
      ) l ON true
      -- Never the system project (account mail): no owner could review and lift its pause, and held
      -- verification and reset mail would lock users out.
      WHERE p.id = ANY(${sql.param(projectIds)}::uuid[]) AND p.sending_paused_reason IS NULL AND NOT p.system
    )
    SELECT w.project_id,
      (COALESCE(sum(c.sent), 0) - w.base_sent)::int AS sent,
      (COALESCE(sum(c.bounces), 0) - w.base_bounces)::int AS bounces,
      (COALESCE(sum(c.complaints), 0) - w.base_complaints)::int AS complaints
    FROM windows w
    LEFT JOIN reputation_counts c ON c.project_id = w.project_id AND c.hour >= w.since
    GROUP BY w.project_id, w.base_sent, w.base_bounces, w.base_complaints`)
  return result.rows
}

/**
 * Re-evaluates the given projects (those that just got a bounce or complaint) and pauses each one over a
 * threshold: an open `project_suspensions` row plus `projects.sending_paused_reason`, and its queued emails
 * moved out of the outbox's way, in the caller's transaction. Returns the ids it paused.
 */
export async function enforceThresholds(
  db: Executor,
  log: Logger,
  thresholds: Thresholds,
  projectIds: readonly string[],
): Promise<string[]> {
  if (!thresholds.enabled || projectIds.length === 0) return []
  const pauses = (await guardWindows(db, projectIds)).flatMap((row) => {
    const verdict = judge(row, thresholds)
    if (!verdict) return []
    return [
      {
        projectId: row.project_id,
        ...verdict,
        sent: row.sent,
        bounces: row.bounces,
        complaints: row.complaints,
        bounceRate: percent(row.bounces, row.sent),
        complaintRate: percent(row.complaints, row.sent),
      },
    ]
  })
  if (pauses.length === 0) return []
  const result = await db.execute<{ id: string }>(sql`
    WITH opened AS (
      INSERT INTO project_suspensions (project_id, reason, message, sent, bounces, complaints, bounce_rate, complaint_rate)
      SELECT v."projectId", v.reason, v.message, v.sent, v.bounces, v.complaints, v."bounceRate", v."complaintRate"
      FROM jsonb_to_recordset(${JSON.stringify(pauses)}::jsonb) AS v("projectId" uuid, reason text, message text,
        sent int, bounces int, complaints int, "bounceRate" float8, "complaintRate" float8)
      ON CONFLICT (project_id) WHERE lifted_at IS NULL DO NOTHING
      RETURNING project_id, message
    )
    UPDATE projects p SET sending_paused_reason = opened.message, updated_at = now()
    FROM opened WHERE p.id = opened.project_id
    RETURNING p.id`)
  const paused = result.rows.map((row) => row.id)
  await holdQueuedEmails(db, paused)
  if (paused.length > 0) {
    log.warn({ pauses: pauses.filter((pause) => paused.includes(pause.projectId)) }, 'reputation guard paused sending')
  }
  return paused
}
