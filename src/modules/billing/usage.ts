import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { AppError } from '../../errors.js'
import { publishEvents } from '../events/bus.js'
import { type BillingCategory, currentPeriodStart, limitColumn, warningRatio } from './categories.js'

export const billingWarningEvent = 'billing.limit_warning'
/** A scheduled campaign that would have passed the cap at its start, sent back to DRAFT. */
export const campaignBlockedEvent = 'billing.campaign_blocked'

type CountedRow = { project_id: string; period: string; used: number; cap: number | null; unwarned: boolean }

/**
 * Adds `count` emails per project to this period's usage of `category`, in one statement, and returns the projects
 * it refused: those whose cap the addition would pass. The check and the increment are one `INSERT … ON CONFLICT
 * DO UPDATE … WHERE used + n <= cap`, so concurrent senders wait on the usage row and can never pass the cap
 * together. Run it inside the transaction that queues the emails, as late as possible: the usage row stays locked
 * until that transaction commits.
 */
export async function addUsage(
  tx: Executor,
  category: BillingCategory,
  counts: ReadonlyMap<string, number>,
): Promise<Set<string>> {
  const entries = [...counts].filter(([, count]) => count > 0)
  if (entries.length === 0) return new Set()
  const projectIds = entries.map(([projectId]) => projectId)
  const result = await tx.execute<CountedRow>(sql`
    WITH wanted AS (
      SELECT w.project_id, w.n, b.${limitColumn[category]}::bigint AS cap
      FROM unnest(${sql.param(projectIds)}::uuid[], ${sql.param(entries.map(([, count]) => count))}::bigint[])
        AS w(project_id, n)
      LEFT JOIN project_billing AS b ON b.project_id = w.project_id
    )
    INSERT INTO billing_usage AS u (project_id, period, category, used)
    SELECT w.project_id, ${currentPeriodStart}, ${category}, w.n FROM wanted AS w
    WHERE w.cap IS NULL OR w.n <= w.cap
    ON CONFLICT (project_id, period, category) DO UPDATE SET used = u.used + excluded.used
    WHERE u.used + excluded.used <= coalesce((SELECT cap FROM wanted WHERE wanted.project_id = u.project_id), u.used + excluded.used)
    RETURNING u.project_id, u.period::text AS period, u.used::float8 AS used,
      (SELECT cap FROM wanted WHERE wanted.project_id = u.project_id)::float8 AS cap, u.warned_at IS NULL AS unwarned`)
  const counted = new Set(result.rows.map((row) => row.project_id))
  const warn = result.rows.filter((row) => row.unwarned && row.cap !== null && row.used >= row.cap * warningRatio)
  if (warn.length > 0) await warnProjects(tx, category, warn)
  return new Set(projectIds.filter((projectId) => !counted.has(projectId)))
}

/**
 * The 80 % warning: a `billing.limit_warning` event in the project's event log (the activity feed shows it, a
 * workflow can be triggered by it), once per period and category; `warned_at` settles races between senders.
 */
async function warnProjects(tx: Executor, category: BillingCategory, rows: readonly CountedRow[]): Promise<void> {
  for (const row of rows) {
    const claimed = await tx.execute(sql`
      UPDATE billing_usage SET warned_at = now()
      WHERE project_id = ${row.project_id} AND period = ${row.period}::date AND category = ${category}
        AND warned_at IS NULL
      RETURNING 1`)
    if (claimed.rows.length === 0) continue
    await publishEvents(tx, [
      {
        projectId: row.project_id,
        contactId: null,
        name: billingWarningEvent,
        data: {
          category,
          limit: row.cap,
          usage: row.used,
          percentage: Math.round(((row.used / (row.cap ?? 1)) * 10_000) / 100),
          period: row.period,
        },
      },
    ])
  }
}

/** The error of a refused send, naming the cap, its size and what is used of it this period. */
export async function limitExceeded(
  db: Executor,
  projectId: string,
  category: BillingCategory,
  requested: number,
): Promise<AppError> {
  const result = await db.execute<{ cap: number | null; used: number; period: string }>(sql`
    SELECT b.${limitColumn[category]}::float8 AS cap, coalesce(u.used, 0)::float8 AS used, ${currentPeriodStart}::text AS period
    FROM (SELECT 1) AS one
    LEFT JOIN project_billing AS b ON b.project_id = ${projectId}
    LEFT JOIN billing_usage AS u ON u.project_id = ${projectId} AND u.period = ${currentPeriodStart} AND u.category = ${category}`)
  const row = result.rows[0]
  const limit = row?.cap ?? 0
  const used = row?.used ?? 0
  return new AppError(
    'BILLING_LIMIT_EXCEEDED',
    `The project's monthly ${category} limit of ${limit} emails is reached (${used} used this month, ${requested} more requested)`,
    {
      details: { category, limit, usage: used, requested, period: row?.period },
      suggestion: 'Raise the limit with PUT /users/@me/projects/:id/billing-limits, or wait for the next month',
    },
  )
}

/** `addUsage` for one project that throws BILLING_LIMIT_EXCEEDED when refused (the transaction then rolls back). */
export async function chargeUsage(
  tx: Executor,
  projectId: string,
  category: BillingCategory,
  count: number,
): Promise<void> {
  const refused = await addUsage(tx, category, new Map([[projectId, count]]))
  if (refused.size > 0) throw await limitExceeded(tx, projectId, category, count)
}

/** Whether `count` more emails would fit the cap now, without counting them (a campaign scheduled for later). */
export async function assertWithinLimit(
  db: Executor,
  projectId: string,
  category: BillingCategory,
  count: number,
): Promise<void> {
  const result = await db.execute<{ fits: boolean }>(sql`
    SELECT b.${limitColumn[category]} IS NULL OR coalesce(u.used, 0) + ${count} <= b.${limitColumn[category]} AS fits
    FROM (SELECT 1) AS one
    LEFT JOIN project_billing AS b ON b.project_id = ${projectId}
    LEFT JOIN billing_usage AS u ON u.project_id = ${projectId} AND u.period = ${currentPeriodStart} AND u.category = ${category}`)
  if (result.rows[0]?.fits === false) throw await limitExceeded(db, projectId, category, count)
}
