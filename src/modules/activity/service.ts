import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { countEventsByName } from '../analytics/counts.js'
import { dayMs, resolveRange } from '../analytics/period.js'
import { percentOf } from '../analytics/rates.js'
import type { ActivityStats, UpcomingActivity, UpcomingQuery } from './schemas.js'
import { activityTypeOf } from './types.js'

export { listActivity } from './feed.js'

/** Counts per activity type over `[startDate, endDate)` (default: the last 30 days), from the rollups. */
export async function getActivityStats(
  db: Executor,
  projectId: string,
  query: { startDate?: Date; endDate?: Date },
): Promise<ActivityStats> {
  const { from, to } = resolveRange({ from: query.startDate, to: query.endDate }, { from: 'startDate', to: 'endDate' })
  const counts = await countEventsByName(db, projectId, from, to)
  const byType = new Map<string, number>()
  const unique = new Map<string, number>()
  for (const { name, count, uniqueCount } of counts) {
    const type = activityTypeOf(name)
    byType.set(type, (byType.get(type) ?? 0) + count)
    unique.set(type, (unique.get(type) ?? 0) + uniqueCount)
  }
  const sent = byType.get('email.sent') ?? 0
  const opened = unique.get('email.opened') ?? 0
  const clicked = unique.get('email.clicked') ?? 0
  return {
    startDate: from,
    endDate: to,
    totalEvents: counts.reduce((sum, { count }) => sum + count, 0),
    totalEmailsSent: sent,
    totalEmailsDelivered: byType.get('email.delivered') ?? 0,
    totalEmailsOpened: opened,
    totalEmailsClicked: clicked,
    totalMachineOpens: byType.get('email.machine_opened') ?? 0,
    totalMachineClicks: byType.get('email.machine_clicked') ?? 0,
    totalEmailsBounced: byType.get('email.bounced') ?? 0,
    totalEmailsComplained: byType.get('email.complaint') ?? 0,
    totalWorkflowsStarted: byType.get('workflow.started') ?? 0,
    openRate: percentOf(opened, sent),
    clickRate: percentOf(clicked, sent),
    byType: [...byType]
      .map(([type, count]) => ({ type, count }))
      .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type)),
  }
}

const defaultRecentMinutes = 5

/** Activity since `since` (default: the last 5 minutes), for "n new" badges. */
export async function countRecentActivity(
  db: Executor,
  projectId: string,
  query: { minutes?: number; since?: Date },
): Promise<{ count: number; since: Date }> {
  const now = new Date()
  const since = query.since ?? new Date(now.getTime() - (query.minutes ?? defaultRecentMinutes) * 60_000)
  if (since.getTime() >= now.getTime()) return { count: 0, since }
  const counts = await countEventsByName(db, projectId, since, now)
  return { count: counts.reduce((sum, { count }) => sum + count, 0), since }
}

/** The activity types that occur in the project, from the rollup (one row per name and hour). */
export async function listActivityTypes(db: Executor, projectId: string): Promise<{ data: string[] }> {
  const result = await db.execute<{ name: string }>(
    sql`SELECT DISTINCT name FROM event_counts_hourly WHERE project_id = ${projectId}`,
  )
  return { data: [...new Set(result.rows.map((row) => activityTypeOf(row.name)))].sort() }
}

type ScheduledEmailRow = {
  id: string
  contact_id: string | null
  email: string | null
  subject: string
  attempts: number
  source_type: string
  campaign_id: string | null
  template_id: string | null
  next_attempt_at: string
}

type ScheduledCampaignRow = {
  id: string
  name: string
  subject: string
  total_recipients: number
  scheduled_for: string
}

type WaitingExecutionRow = {
  id: string
  contact_id: string
  email: string
  workflow_id: string
  workflow_name: string
  step_id: string | null
  step_name: string | null
  step_type: string | null
  waiting_for: string | null
  due_at: string
}

/**
 * What is about to happen, soonest first: scheduled campaigns, and emails waiting in the outbox for a later
 * attempt (a retry after a temporary failure). A campaign's own emails paced into the next minutes are not
 * listed one by one: its progress is the campaign's. And workflow executions waiting for a DELAY to end or a
 * wait to time out, by the active executions' (project, due time) index.
 */
export async function listUpcomingActivity(
  db: Executor,
  projectId: string,
  query: UpcomingQuery,
): Promise<{ data: UpcomingActivity[] }> {
  const until = new Date(Date.now() + query.daysAhead * dayMs)
  const [emails, campaigns, executions] = await Promise.all([
    db.execute<ScheduledEmailRow>(sql`
      SELECT m.id, m.contact_id, c.email, m.subject, m.attempts, m.source_type, m.campaign_id, m.template_id,
        m.next_attempt_at
      FROM emails m LEFT JOIN contacts c ON c.id = m.contact_id
      WHERE m.project_id = ${projectId} AND m.status = 'QUEUED' AND m.next_attempt_at > now()
        AND m.next_attempt_at <= ${until} AND (m.source_type <> 'CAMPAIGN' OR m.attempts > 0)
      ORDER BY m.next_attempt_at, m.id
      LIMIT ${query.limit}`),
    db.execute<ScheduledCampaignRow>(sql`
      SELECT id, name, subject, total_recipients, scheduled_for FROM campaigns
      WHERE project_id = ${projectId} AND status = 'SCHEDULED' AND scheduled_for <= ${until}
      ORDER BY scheduled_for, id
      LIMIT ${query.limit}`),
    db.execute<WaitingExecutionRow>(sql`
      SELECT x.id, x.contact_id, c.email, x.workflow_id, w.name AS workflow_name, s.id AS step_id,
        s.name AS step_name, s.type AS step_type, x.waiting_for, x.due_at
      FROM workflow_executions x
      JOIN contacts c ON c.id = x.contact_id
      JOIN workflows w ON w.id = x.workflow_id
      LEFT JOIN workflow_steps s ON s.id = x.current_step_id
      WHERE x.project_id = ${projectId} AND x.status = 'WAITING' AND x.due_at > now() AND x.due_at <= ${until}
      ORDER BY x.due_at, x.id
      LIMIT ${query.limit}`),
  ])
  const upcoming: UpcomingActivity[] = [
    ...emails.rows.map((row) => ({
      id: row.id,
      type: 'email.scheduled',
      timestamp: new Date(row.next_attempt_at),
      contact: row.contact_id && row.email !== null ? { id: row.contact_id, email: row.email } : null,
      data: {
        emailId: row.id,
        subject: row.subject,
        attempts: row.attempts,
        sourceType: row.source_type,
        campaignId: row.campaign_id,
        templateId: row.template_id,
      },
    })),
    ...campaigns.rows.map((row) => ({
      id: row.id,
      type: 'campaign.scheduled',
      timestamp: new Date(row.scheduled_for),
      contact: null,
      data: { campaignId: row.id, name: row.name, subject: row.subject, totalRecipients: row.total_recipients },
    })),
    ...executions.rows.map((row) => ({
      id: row.id,
      type: 'workflow.waiting',
      timestamp: new Date(row.due_at),
      contact: { id: row.contact_id, email: row.email },
      data: {
        executionId: row.id,
        workflowId: row.workflow_id,
        workflowName: row.workflow_name,
        step: row.step_id ? { id: row.step_id, name: row.step_name, type: row.step_type } : null,
        waitingFor: row.waiting_for,
      },
    })),
  ]
  upcoming.sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime() || a.id.localeCompare(b.id))
  return { data: upcoming.slice(0, query.limit) }
}
