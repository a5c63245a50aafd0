import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Config } from '../../config.js'
import type { Database, Executor } from '../../db/client.js'
import { memberships, projectSuspensions, projects, reputationCounts } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { releaseHeldEmails } from '../delivery/sql.js'
import { judge, type Limits, warningLimits } from './guard.js'
import { countsOf, projectRates, type Windows } from './rates.js'
import type { SecurityView, SuspensionView } from './schemas.js'

const recentSuspensions = 20

async function recentSuspensionsOf(db: Executor, projectId: string): Promise<SuspensionView[]> {
  const rows = await db
    .select({
      id: projectSuspensions.id,
      scope: projectSuspensions.scope,
      reason: projectSuspensions.reason,
      message: projectSuspensions.message,
      sent: projectSuspensions.sent,
      bounces: projectSuspensions.bounces,
      complaints: projectSuspensions.complaints,
      bounceRate: projectSuspensions.bounceRate,
      complaintRate: projectSuspensions.complaintRate,
      pausedAt: projectSuspensions.createdAt,
      liftedAt: projectSuspensions.liftedAt,
      liftedBy: projectSuspensions.liftedBy,
    })
    .from(projectSuspensions)
    .where(eq(projectSuspensions.projectId, projectId))
    .orderBy(desc(projectSuspensions.createdAt))
    .limit(recentSuspensions)
  return rows.map((row) => ({
    ...row,
    scope: row.scope === 'MARKETING' ? 'MARKETING' : 'PROJECT',
    reason: row.reason === 'COMPLAINT_RATE' ? 'COMPLAINT_RATE' : 'BOUNCE_RATE',
  }))
}

type StreamView = SecurityView['streams']['marketing']

function streamView(windows: Windows, pausedReason: string | null, limits: Limits): StreamView {
  return {
    sending: pausedReason ? 'PAUSED' : 'ACTIVE',
    pausedReason,
    isHealthy: !pausedReason && !judge(countsOf(windows.sevenDay), limits),
    ...windows,
  }
}

/** Rates, thresholds, state and recent pauses of a project the caller is already known to reach. */
export async function getProjectSecurity(db: Executor, config: Config, projectId: string): Promise<SecurityView> {
  const [project] = await db
    .select({
      disabled: projects.disabled,
      pausedReason: projects.sendingPausedReason,
      marketingPausedReason: projects.marketingPausedReason,
    })
    .from(projects)
    .where(eq(projects.id, projectId))
  if (!project) throw notFound('Project')
  const [rates, suspensions] = await Promise.all([projectRates(db, projectId), recentSuspensionsOf(db, projectId)])
  const { marketing, transactional, ...all } = rates
  const thresholds = config.reputation
  const warning = warningLimits(thresholds)
  const streams = {
    // Marketing mail is held by its own pause and by the pause of all sending.
    marketing: streamView(marketing, project.marketingPausedReason ?? project.pausedReason, warning),
    transactional: streamView(transactional, project.pausedReason, warning),
  }
  return {
    projectId,
    sending: project.pausedReason ? 'PAUSED' : 'ACTIVE',
    pausedReason: project.pausedReason,
    isDisabled: project.disabled,
    isHealthy:
      streams.marketing.isHealthy && streams.transactional.isHealthy && !judge(countsOf(all.sevenDay), warning),
    ...all,
    streams,
    thresholds: {
      enabled: thresholds.enabled,
      bounceRate: thresholds.bounceRatePercent,
      complaintRate: thresholds.complaintRatePercent,
      ceilingBounceRate: thresholds.ceilingBounceRatePercent,
      ceilingComplaintRate: thresholds.ceilingComplaintRatePercent,
      minimumSent: thresholds.minSent,
    },
    suspensions,
  }
}

async function memberRole(db: Executor, userId: string, projectId: string) {
  const [membership] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
  if (!membership) throw notFound('Project')
  return membership.role
}

/** The dashboard's view: any member may read; a non-member gets the same 404 as a missing project. */
export async function getMemberProjectSecurity(
  db: Executor,
  config: Config,
  userId: string,
  projectId: string,
): Promise<SecurityView> {
  await memberRole(db, userId, projectId)
  return getProjectSecurity(db, config, projectId)
}

/**
 * Lifts every open pause of the project, of the marketing stream and of all sending (owners only). Records who
 * lifted them and the current hour's rollup as the guard's new baseline, so only events after the lift can pause
 * the project again. Resuming an active project changes nothing. Returns whether a pause was lifted (the caller
 * then wakes the outbox for the held emails).
 */
export async function resumeProjectSending(db: Database, userId: string, projectId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    if ((await memberRole(tx, userId, projectId)) !== 'OWNER') {
      throw new AppError('FORBIDDEN', 'Only a project owner can resume sending')
    }
    const [project] = await tx
      .select({ pausedReason: projects.sendingPausedReason, marketingPausedReason: projects.marketingPausedReason })
      .from(projects)
      .where(eq(projects.id, projectId))
      .for('update')
    if (!project?.pausedReason && !project?.marketingPausedReason) return false
    const [baseline] = await tx
      .select({
        sent: reputationCounts.sent,
        bounces: reputationCounts.bounces,
        complaints: reputationCounts.complaints,
        marketingSent: reputationCounts.marketingSent,
        marketingBounces: reputationCounts.marketingBounces,
        marketingComplaints: reputationCounts.marketingComplaints,
      })
      .from(reputationCounts)
      .where(
        and(
          eq(reputationCounts.projectId, projectId),
          eq(reputationCounts.hour, sql`date_trunc('hour', now(), 'UTC')`),
        ),
      )
    await tx
      .update(projectSuspensions)
      .set({
        liftedAt: sql`now()`,
        liftedBy: userId,
        baselineSent: baseline?.sent ?? 0,
        baselineBounces: baseline?.bounces ?? 0,
        baselineComplaints: baseline?.complaints ?? 0,
        baselineMarketingSent: baseline?.marketingSent ?? 0,
        baselineMarketingBounces: baseline?.marketingBounces ?? 0,
        baselineMarketingComplaints: baseline?.marketingComplaints ?? 0,
      })
      .where(and(eq(projectSuspensions.projectId, projectId), isNull(projectSuspensions.liftedAt)))
    await tx
      .update(projects)
      .set({ sendingPausedReason: null, marketingPausedReason: null })
      .where(eq(projects.id, projectId))
    await releaseHeldEmails(tx, projectId)
    return true
  })
}
